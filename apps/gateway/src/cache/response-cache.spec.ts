import { ResponseCache, type CachedResponse } from './response-cache';

describe(ResponseCache.name, () => {
  let clock: number;
  const answer = (text: string): CachedResponse => ({ status: 200, body: Buffer.from(text) });
  const cacheOf = (options: { ttlMs?: number; maxBytes?: number } = {}) =>
    new ResponseCache({ ttlMs: options.ttlMs ?? 1_000, maxBytes: options.maxBytes ?? 1_000, now: () => clock });

  beforeEach(() => {
    clock = 0;
  });

  it('answers what it was given until the TTL, then forgets it', () => {
    const cache = cacheOf({ ttlMs: 100 });
    expect(cache.set('k', 'media-channels', 'org_a', answer('page'), cache.ticket())).toBe(true);
    clock = 99;
    expect(cache.get('k')?.body.toString()).toBe('page');
    clock = 100;
    expect(cache.get('k')).toBeUndefined();
    expect(cache.heldBytes).toBe(0);
  });

  it("drops every page of the tenant's view on invalidation, and nothing of other tenants", () => {
    const cache = cacheOf();
    for (const [key, tenant] of [
      ['a1', 'org_a'],
      ['a2', 'org_a'],
      ['b1', 'org_b'],
    ])
      cache.set(key, 'media-channels', tenant, answer(key), cache.ticket());
    cache.invalidate('media-channels', 'org_a');
    expect(['a1', 'a2', 'b1'].map((key) => cache.peek(key)?.body.toString())).toEqual([undefined, undefined, 'b1']);
  });

  it("refuses a fill whose ticket predates an invalidation of that tenant's view, but not of another tenant's", () => {
    const cache = cacheOf();
    const ticket = cache.ticket();
    cache.invalidate('media-channels', 'org_a');
    expect(cache.set('a', 'media-channels', 'org_a', answer('old rows'), ticket)).toBe(false);
    expect(cache.set('b', 'media-channels', 'org_b', answer('unaffected'), ticket)).toBe(true);
    expect(cache.set('a', 'media-channels', 'org_a', answer('new rows'), cache.ticket())).toBe(true);
  });

  it('refuses every fill whose ticket predates a clear', () => {
    const cache = cacheOf();
    const ticket = cache.ticket();
    cache.clear();
    expect(cache.set('b', 'media-channels', 'org_b', answer('x'), ticket)).toBe(false);
  });

  it('keeps its bodies within maxBytes, letting the least recently used go first', () => {
    const cache = cacheOf({ maxBytes: 10 });
    cache.set('first', 'media-channels', 'org_a', answer('aaaa'), cache.ticket());
    cache.set('second', 'media-channels', 'org_a', answer('bbbb'), cache.ticket());
    cache.get('first');
    cache.set('third', 'media-channels', 'org_b', answer('cccc'), cache.ticket());
    expect(['first', 'second', 'third'].map((key) => cache.peek(key) !== undefined)).toEqual([true, false, true]);
    expect(cache.heldBytes).toBe(8);
    expect(cache.set('huge', 'media-channels', 'org_a', answer('x'.repeat(11)), cache.ticket())).toBe(false);
  });

  it('replaces an entry stored again under the same key without counting it twice', () => {
    const cache = cacheOf();
    cache.set('k', 'media-channels', 'org_a', answer('12345'), cache.ticket());
    cache.set('k', 'media-channels', 'org_a', answer('123'), cache.ticket());
    expect([cache.size, cache.heldBytes]).toEqual([1, 3]);
  });

  it('stores nothing when disabled', () => {
    const cache = cacheOf({ ttlMs: 0 });
    expect(cache.enabled).toBe(false);
    expect(cache.set('k', 'media-channels', 'org_a', answer('x'), cache.ticket())).toBe(false);
  });
});
