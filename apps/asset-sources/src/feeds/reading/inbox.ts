/** Messages in arrival order for one reader; the first failure ends it. */
export class Inbox<T> {
  private readonly queue: T[] = [];
  private failure: { error: unknown } | undefined;
  private wake: (() => void) | undefined;

  push(message: T): void {
    this.queue.push(message);
    this.wake?.();
  }

  fail(error: unknown): void {
    this.failure ??= { error };
    this.wake?.();
  }

  async next(): Promise<T> {
    for (;;) {
      const message = this.queue.shift();
      if (message !== undefined) return message;
      if (this.failure) throw this.failure.error;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}
