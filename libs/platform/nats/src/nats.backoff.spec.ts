import { abortableSleep, backoffDelay } from './nats.backoff';

describe(backoffDelay.name, () => {
  it('doubles from the initial delay and stops at the ceiling', () => {
    const options = { initialMs: 100, maxMs: 1000 };
    expect([1, 2, 3, 4, 5, 6].map((attempt) => backoffDelay(options, attempt))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('stays finite for absurd attempt counts', () => {
    expect(backoffDelay({ initialMs: 1, maxMs: 5000 }, 10_000)).toBe(5000);
  });
});

describe(abortableSleep.name, () => {
  it('returns at once when aborted', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const sleeping = abortableSleep(10_000, controller.signal);
    controller.abort();
    await sleeping;
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
