export interface BackoffOptions {
  /** Delay after the first failure. */
  initialMs: number;
  /** Ceiling, so a long outage still retries at a useful rate. */
  maxMs: number;
}

/** Exponential delay for the given 1-based attempt: initial, 2x, 4x ... capped at max. */
export function backoffDelay({ initialMs, maxMs }: BackoffOptions, attempt: number): number {
  const exponent = Math.max(0, Math.min(attempt - 1, 30));
  return Math.min(maxMs, initialMs * 2 ** exponent);
}

/** A sleep that stop() can cut short, so shutdown never waits out a poll or retry interval. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
