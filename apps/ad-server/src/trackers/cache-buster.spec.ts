import { CACHE_BUSTER_MACROS, compileTrackerUrl, expandCacheBusters, newCacheBuster, trackerUrls, uriSafe } from './cache-buster';

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

  it('leaves other VAST macros for the player', () => {
    const url = 'https://t.example/e?code=[ERRORCODE]&ts=[TIMESTAMP]&u=[ASSETURI]';
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

describe('uriSafe', () => {
  it('returns a clean URL as it is', () => {
    const url = 'https://t.example/p?a=1&b=%20x&c=[TIMESTAMP]&d=[ERRORCODE]#frag';
    expect(uriSafe(url)).toBe(url);
  });

  it('percent-encodes characters a URI cannot hold', () => {
    expect(uriSafe('https://t.example/p?q=a b"<c>{d}|e\\f^g`h')).toBe('https://t.example/p?q=a%20b%22%3Cc%3E%7Bd%7D%7Ce%5Cf%5Eg%60h');
  });

  it('encodes a stray percent sign but keeps escapes', () => {
    expect(uriSafe('https://t.example/p?q=100%&r=%2F&s=%zz')).toBe('https://t.example/p?q=100%25&r=%2F&s=%25zz');
  });

  it("encodes other ad servers' ${MACRO} and %%MACRO%% tokens", () => {
    expect(uriSafe('https://t.example/p?g=${GDPR}&d=%%SITE%%')).toBe('https://t.example/p?g=$%7BGDPR%7D&d=%25%25SITE%25%25');
  });

  it('encodes brackets outside [MACRO]s and keeps the macros', () => {
    expect(uriSafe('https://t.example/p?a[]=1&b=]]>&c=[ASSETURI]&d=[x')).toBe('https://t.example/p?a%5B%5D=1&b=%5D%5D%3E&c=[ASSETURI]&d=%5Bx');
  });

  it('is applied to compiled tracker URLs', () => {
    expect(expandCacheBusters('https://t.example/p?cb=[CACHEBUSTING]&q=a b', '12345678')).toBe('https://t.example/p?cb=12345678&q=a%20b');
  });
});
