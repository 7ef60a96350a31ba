import type { ApiKeyRecord } from './identity.repository';
import { deferred, liveKey } from './identity.test-support';
import { PrincipalCache } from './principal-cache';
import { PrincipalResolver } from './principal-resolver';
import type { FreshnessGate } from '../cache/invalidation-channel';

describe(PrincipalResolver.name, () => {
  let rows: Map<string, ApiKeyRecord>;
  let reads: number;
  let live: boolean;
  let fence: () => Promise<boolean>;
  let cache: PrincipalCache;
  let resolver: PrincipalResolver;

  const repository = {
    findLiveApiKey: async (keyId: string) => {
      reads += 1;
      return rows.get(keyId);
    },
  };
  const gate: FreshnessGate = { isLive: () => live, mark: () => 0, fence: () => fence() };

  beforeEach(() => {
    rows = new Map();
    reads = 0;
    live = true;
    fence = async () => true;
    cache = new PrincipalCache({ ttlMs: 30_000, maxEntries: 100 });
    resolver = new PrincipalResolver(repository, cache, gate);
  });

  const addKey = (orgId = 'org_a') => {
    const key = liveKey(orgId);
    rows.set(key.record.keyId, key.record);
    return key;
  };
  const wrongSecret = (apiKey: string) => `${apiKey.slice(0, -1)}${apiKey.endsWith('A') ? 'B' : 'A'}`;

  it('reads MySQL once, then answers from the cache', async () => {
    const { apiKey, record } = addKey();
    const first = await resolver.resolve(apiKey);
    const second = await resolver.resolve(apiKey);
    expect(first).toMatchObject({ keyId: record.keyId, orgId: 'org_a', accountIds: [1], permissions: ['*'] });
    expect(second).toBe(first);
    expect(reads).toBe(1);
  });

  it('refuses a wrong secret for a cached key, without a MySQL read', async () => {
    const { apiKey } = addKey();
    await resolver.resolve(apiKey);
    expect(await resolver.resolve(wrongSecret(apiKey))).toBeNull();
    expect(reads).toBe(1);
    expect(await resolver.resolve(apiKey)).not.toBeNull();
  });

  it('does not remember unknown keys: a key created after a miss works at once', async () => {
    const key = liveKey();
    expect(await resolver.resolve(key.apiKey)).toBeNull();
    rows.set(key.record.keyId, key.record);
    expect(await resolver.resolve(key.apiKey)).not.toBeNull();
  });

  it('refuses malformed keys without reading MySQL', async () => {
    expect(await resolver.resolve('rmk_nope')).toBeNull();
    expect(reads).toBe(0);
  });

  it('reads MySQL on every request while the invalidation channel is not live, and fills nothing', async () => {
    const { apiKey, record } = addKey();
    await resolver.resolve(apiKey);
    live = false;
    rows.delete(record.keyId);
    expect(await resolver.resolve(apiKey)).toBeNull();
    rows.set(record.keyId, record);
    await resolver.resolve(apiKey);
    await resolver.resolve(apiKey);
    expect(reads).toBe(4);
  });

  it('goes to MySQL when the round trip cannot be confirmed', async () => {
    const { apiKey, record } = addKey();
    await resolver.resolve(apiKey);
    fence = async () => false;
    rows.delete(record.keyId);
    expect(await resolver.resolve(apiKey)).toBeNull();
    expect(reads).toBe(2);
  });

  it('does not serve an entry evicted while its round trip was under way', async () => {
    const { apiKey, record } = addKey();
    await resolver.resolve(apiKey);
    fence = async () => {
      // The revocation broadcast arrives ahead of the round trip's answer.
      rows.delete(record.keyId);
      cache.evictKey(record.keyId);
      return true;
    };
    expect(await resolver.resolve(apiKey)).toBeNull();
  });

  it('does not cache a row read before an invalidation that arrived while reading', async () => {
    const { apiKey, record } = addKey();
    const reading = deferred<ApiKeyRecord | undefined>();
    const slow = new PrincipalResolver({ findLiveApiKey: () => reading.promise }, cache, gate);
    const pending = slow.resolve(apiKey);
    cache.evictKey(record.keyId);
    reading.resolve(record);
    expect(await pending).not.toBeNull();
    expect(cache.peek(record.keyId)).toBeUndefined();
  });

  it('reads MySQL every time with the cache disabled', async () => {
    const off = new PrincipalResolver(repository, new PrincipalCache({ ttlMs: 0, maxEntries: 1 }), gate);
    const { apiKey } = addKey();
    await off.resolve(apiKey);
    await off.resolve(apiKey);
    expect(reads).toBe(2);
  });
});
