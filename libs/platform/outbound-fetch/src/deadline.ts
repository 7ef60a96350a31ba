import { stalled, timedOut } from './errors';

/** How long a fetch may go without a byte from its host while we wait for one, and what it fails with then. */
export interface IdleLimit {
  ms: number;
  error: () => Error;
}

/**
 * One timer for a whole outbound fetch: DNS, connects, every redirect hop and the body share it,
 * so a chain of slow hops cannot stretch a 30 s budget into minutes. Whatever is in progress
 * listens to `signal` and stops with `signal.reason` when the time is up.
 *
 * With an `idle` limit it also stops a fetch whose host goes quiet: nothing arrived (`progressed`)
 * for `idle.ms` while nothing waited in our own buffer (`heldBy`: a slow reader is not a stalled
 * host). A feed that may take 30 minutes to read whole then still fails within a minute or two
 * when its host hangs up without closing, instead of holding its worker until the total budget ends.
 */
export class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private idleTimer: NodeJS.Timeout | undefined;
  private lastProgressAt = performance.now();
  private readerHolds: () => boolean = () => false;

  constructor(
    timeoutMs: number,
    errorWhenExpired: () => Error,
    private readonly idle?: IdleLimit,
  ) {
    this.timer = setTimeout(() => this.controller.abort(errorWhenExpired()), timeoutMs);
    if (idle) this.armIdleCheck(idle.ms);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Bytes arrived from the host. A timestamp, not a timer reset: it runs once per chunk. */
  progressed(): void {
    this.lastProgressAt = performance.now();
  }

  /** While `holds()` answers true, bytes wait for our reader, and the quiet is ours, not the host's. */
  heldBy(holds: () => boolean): void {
    this.readerHolds = holds;
  }

  /** Stops the clock once the fetch has finished (or failed) so the timer cannot hold the process. */
  dispose(): void {
    clearTimeout(this.timer);
    clearTimeout(this.idleTimer);
  }

  private armIdleCheck(inMs: number): void {
    this.idleTimer = setTimeout(() => this.checkIdle(), inMs);
  }

  private checkIdle(): void {
    const idle = this.idle as IdleLimit;
    if (this.controller.signal.aborted) return;
    if (this.readerHolds()) this.progressed();
    const quietMs = performance.now() - this.lastProgressAt;
    if (quietMs >= idle.ms) this.controller.abort(idle.error());
    else this.armIdleCheck(idle.ms - quietMs);
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

/**
 * The deadline of a fetch of `currentUrl()` (the hop in progress, so the error names the URL that
 * hung): OUTBOUND_TIMEOUT after timeoutMs, and OUTBOUND_STALLED after idleTimeoutMs without a byte.
 */
export function fetchDeadline(currentUrl: () => URL, limits: { timeoutMs: number; idleTimeoutMs?: number }): Deadline {
  const { timeoutMs, idleTimeoutMs } = limits;
  const idle = idleTimeoutMs === undefined ? undefined : { ms: idleTimeoutMs, error: () => stalled(currentUrl(), idleTimeoutMs) };
  return new Deadline(timeoutMs, () => timedOut(currentUrl(), timeoutMs), idle);
}
