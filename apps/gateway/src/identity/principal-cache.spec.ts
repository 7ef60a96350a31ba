import { cachedPrincipal as fromRecord, liveKey } from './identity.test-support';
import { PrincipalCache } from './principal-cache';

const cachedPrincipal = (keyId: string, orgId = 'org_a') => fromRecord({ ...liveKey(orgId).record, keyId });

describe(PrincipalCache.name, () => {
  let now = 1_000;
  const clock = () => now;
  const cache = (ttlMs = 30_000, maxEntries = 100) => new PrincipalCache({ ttlMs, maxEntries, now: clock });

  beforeEach(() => {
    now = 1_000;
  });

  it('serves an entry until its TTL and forgets it from then on', () => {
    const c = cache(500);
    const entry = cachedPrincipal('k1');
    expect(c.set('k1', entry, c.ticket())).toBe(true);
    now += 499;
    expect(c.get('k1')?.principal).toBe(entry.principal);
    now += 1;
    expect(c.get('k1')).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it('keeps at most maxEntries, dropping the least recently used', () => {
    const c = cache(30_000, 2);
    c.set('k1', cachedPrincipal('k1'), c.ticket());
    c.set('k2', cachedPrincipal('k2'), c.ticket());
    c.get('k1');
    c.set('k3', cachedPrincipal('k3'), c.ticket());
    expect(c.size).toBe(2);
    expect(c.peek('k2')).toBeUndefined();
    expect(c.peek('k1')).toBeDefined();
    expect(c.peek('k3')).toBeDefined();
  });

  it('stores nothing when the TTL is 0', () => {
    const c = cache(0);
    expect(c.enabled).toBe(false);
    expect(c.set('k1', cachedPrincipal('k1'), c.ticket())).toBe(false);
    expect(c.get('k1')).toBeUndefined();
  });

  it('refuses a fill whose read may predate an invalidation', () => {
    const c = cache();
    const ticket = c.ticket();
    c.evictKey('other');
    expect(c.set('k1', cachedPrincipal('k1'), ticket)).toBe(false);
    expect(c.get('k1')).toBeUndefined();
    expect(c.set('k1', cachedPrincipal('k1'), c.ticket())).toBe(true);
  });

  it('evicts one key, every key of an org, or everything', () => {
    const c = cache();
    for (const [keyId, orgId] of [
      ['k1', 'org_a'],
      ['k2', 'org_a'],
      ['k3', 'org_b'],
      ['k4', 'org_b'],
    ])
      c.set(keyId, cachedPrincipal(keyId, orgId), c.ticket());
    c.evictKey('k4');
    expect(c.peek('k4')).toBeUndefined();
    c.evictOrg('org_a');
    expect([c.peek('k1'), c.peek('k2'), c.peek('k3')].map(Boolean)).toEqual([false, false, true]);
    c.clear();
    expect(c.size).toBe(0);
  });
});
