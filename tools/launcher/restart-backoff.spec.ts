import { RestartBackoff } from './restart-backoff';

describe(RestartBackoff.name, () => {
  const options = { initialMs: 500, capMs: 30_000, resetAfterUpMs: 60_000 };

  it('doubles the delay per quick death up to the cap, and stays there', () => {
    const backoff = new RestartBackoff(options);
    expect(Array.from({ length: 10 }, () => backoff.next(100))).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000, 30_000]);
  });

  it('starts again from the first delay after a run that lasted resetAfterUpMs', () => {
    const backoff = new RestartBackoff(options);
    [100, 100, 100].forEach((up) => backoff.next(up));
    expect(backoff.next(59_999)).toBe(4000);
    expect(backoff.next(60_000)).toBe(500);
    expect(backoff.next(10)).toBe(1000);
  });
});
