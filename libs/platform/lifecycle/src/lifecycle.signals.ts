export const DEFAULT_SHUTDOWN_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];

/**
 * Calls `onSignal` for each signal received. The listener stays installed after the first signal
 * on purpose: a second Ctrl-C then reaches the (idempotent) shutdown instead of Node's default
 * handler, which would kill the process mid-drain. Returns a function that removes the listeners.
 */
export function listenForSignals(signals: readonly NodeJS.Signals[], onSignal: (signal: NodeJS.Signals) => void): () => void {
  const listener = (signal: NodeJS.Signals) => onSignal(signal);
  for (const signal of signals) process.on(signal, listener);
  return () => {
    for (const signal of signals) process.off(signal, listener);
  };
}
