export interface RestartBackoffOptions {
  /** Delay before the first restart. */
  initialMs: number;
  /** The delay doubles per restart up to this, so an app that keeps dying costs one start per cap. */
  capMs: number;
  /** An app that stayed up this long is healthy again: its next death restarts after initialMs. */
  resetAfterUpMs: number;
}

export const DEFAULT_RESTART_BACKOFF: RestartBackoffOptions = { initialMs: 500, capMs: 30_000, resetAfterUpMs: 60_000 };

/** How long to wait before restarting an app that died, given how long its last run lasted. */
export class RestartBackoff {
  private consecutive = 0;

  constructor(private readonly options: RestartBackoffOptions = DEFAULT_RESTART_BACKOFF) {}

  /** Counts one more death and answers the delay before the restart it calls for. */
  next(upForMs: number): number {
    if (upForMs >= this.options.resetAfterUpMs) this.consecutive = 0;
    const delay = Math.min(this.options.capMs, this.options.initialMs * 2 ** this.consecutive);
    // Stop growing the exponent once capped, so a long crash loop never overflows it.
    if (delay < this.options.capMs) this.consecutive++;
    return delay;
  }
}
