import { shrinkHold } from './feed-ingest.job';

describe(shrinkHold.name, () => {
  it('passes a loss of exactly the share the guard allows, and holds one past it', () => {
    expect(shrinkHold(100, 93, 7)).toBeUndefined();
    expect(shrinkHold(20, 9, 55)).toBeUndefined();
    expect(shrinkHold(100, 92, 7)).toBe('the new version has 92 rows, 8% fewer than the 100 serving (the guard allows 7%).');
  });

  it('says a loss just past the share with its decimal, not rounded down to the share itself', () => {
    expect(shrinkHold(1000, 496, 50)).toBe('the new version has 496 rows, 50.4% fewer than the 1000 serving (the guard allows 50%).');
    expect(shrinkHold(2001, 1000, 50)).toBe('the new version has 1000 rows, 50.1% fewer than the 2001 serving (the guard allows 50%).');
  });

  it('holds nothing shrunk when rows missing from the feed keep serving (missingRowPolicy keep), but still an empty feed', () => {
    expect(shrinkHold(300, 100, 50, { keepsMissing: true })).toBeUndefined();
    expect(shrinkHold(300, 0, 50, { keepsMissing: true })).toBe('the new version of the feed has no rows.');
  });

  it('holds nothing while nothing serves', () => {
    expect(shrinkHold(0, 0, 50)).toBeUndefined();
  });
});
