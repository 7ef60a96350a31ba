/**
 * One timer for a whole outbound fetch: DNS, connects, every redirect hop and the body share it,
 * so a chain of slow hops cannot stretch a 30 s budget into minutes. Whatever is in progress
 * listens to `signal` and stops with `signal.reason` when the time is up.
 */
export class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;

  constructor(timeoutMs: number, errorWhenExpired: () => Error) {
    this.timer = setTimeout(() => this.controller.abort(errorWhenExpired()), timeoutMs);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Stops the clock once the fetch has finished (or failed) so the timer cannot hold the process. */
  dispose(): void {
    clearTimeout(this.timer);
  }
}

/** Runs `onAbort` when the signal aborts (at once if it already has); returns the unsubscribe. */
export function onAbort(signal: AbortSignal, handler: (reason: Error) => void): () => void {
  const listener = () => handler(signal.reason as Error);
  if (signal.aborted) {
    listener();
    return () => undefined;
  }
  signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
}
