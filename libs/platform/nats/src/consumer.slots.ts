/**
 * The handler slots of one consumer: at most `size` handlers work at once, counting the messages a pull
 * has asked for and not yet handed over. A handler may give its slot back while it waits on something
 * outside the process (another replica's lock) and take one again before it goes on; a handler coming
 * back is served before new messages are pulled, so a wait never starves behind fresh work.
 */
export class ConsumerSlots {
  private busy = 0;
  private requested = 0;
  private readonly returning: (() => void)[] = [];
  private readonly freed: (() => void)[] = [];

  constructor(private readonly size: number) {}

  /** How many messages the next pull may ask for: nothing while a handler waits to come back. */
  pullable(): number {
    return Math.max(0, this.size - this.busy - this.requested - this.returning.length);
  }

  /** A pull asks for `count` messages; each one handed over becomes a busy slot (`delivered`). */
  requesting(count: number): void {
    this.requested = count;
  }

  delivered(): void {
    this.requested = Math.max(0, this.requested - 1);
    this.busy += 1;
  }

  /** The pull ended: messages it asked for and did not get take no slot. */
  pullEnded(): void {
    this.requested = 0;
    this.grant();
  }

  /** A handler ended, or gave its slot back to wait. */
  release(): void {
    this.busy -= 1;
    this.grant();
  }

  /** Resolves once a slot is this caller's again. */
  reclaim(): Promise<void> {
    return new Promise((resolve) => {
      this.returning.push(resolve);
      this.grant();
    });
  }

  /** Resolves at the next change that may let a pull ask for more. */
  changed(): Promise<void> {
    return new Promise((resolve) => this.freed.push(resolve));
  }

  private grant(): void {
    while (this.returning.length > 0 && this.busy + this.requested < this.size) {
      this.busy += 1;
      this.returning.shift()?.();
    }
    for (const wake of this.freed.splice(0)) wake();
  }
}
