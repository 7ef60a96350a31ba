import { CACHE_BUSTER_MACROS, compileTrackerUrl, expandCacheBusters, newCacheBuster, trackerUrls } from './cache-buster';

describe('newCacheBuster', () => {
  it('is 8 digits and varies', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const cb = newCacheBuster();
      expect(cb).toMatch(/^[1-9]\d{7}$/);
      seen.add(cb);
    }
    expect(seen.size).toBeGreaterThan(190);
  });
});

describe('expandCacheBusters', () => {
  it('replaces the IAB [CACHEBUSTING] macro', () => {
    expect(expandCacheBusters('https://t.example/p?ord=[CACHEBUSTING]&x=1', '12345678')).toBe('https://t.example/p?ord=12345678&x=1');
  });

  it.each(CACHE_BUSTER_MACROS)('replaces %s', (macro) => {
    expect(expandCacheBusters(`https://t.example/p?a=${macro}`, '87654321')).toBe('https://t.example/p?a=87654321');
  });

  it('replaces every occurrence with the same value', () => {
    expect(expandCacheBusters('https://t.example/[CACHEBUSTING]/p?cb=${CACHEBUSTER}&r=[timestamp]', '11112222')).toBe(
      'https://t.example/11112222/p?cb=11112222&r=11112222',
    );
  });

  it('leaves other macros for the player', () => {
    const url = 'https://t.example/e?code=[ERRORCODE]&ts=[TIMESTAMP]&u=[ASSETURI]&g=${GDPR}';
    expect(expandCacheBusters(url, '12345678')).toBe(url);
  });

  it('returns a URL without macros unchanged', () => {
    expect(expandCacheBusters('https://t.example/p?x=1', '12345678')).toBe('https://t.example/p?x=1');
  });

  it('compiles a URL once', () => {
    const url = `https://t.example/once?cb=[CACHEBUSTING]&n=${Math.random()}`;
    const a = compileTrackerUrl(url);
    expect(compileTrackerUrl(url)).toBe(a);
    expect(a.parts).toHaveLength(2);
  });
});

describe('trackerUrls', () => {
  const trackers = {
    primaryClickTracker: ['https://a.example/c?cb=[CACHEBUSTING]'],
    secondaryClickTrackers: ['  ', 'https://b.example/c'],
    bannerImpressionTrackers: ['https://c.example/i'],
  };

  it('takes the named fields in order, drops blanks and expands cache busters', () => {
    expect(trackerUrls(trackers, ['secondaryClickTrackers', 'primaryClickTracker'], '10000001')).toEqual([
      'https://b.example/c',
      'https://a.example/c?cb=10000001',
    ]);
  });

  it('is empty for missing fields or no record', () => {
    expect(trackerUrls(trackers, ['muteVideoViewedTracker'], '10000001')).toEqual([]);
    expect(trackerUrls(undefined, ['primaryClickTracker'], '10000001')).toEqual([]);
  });
});
