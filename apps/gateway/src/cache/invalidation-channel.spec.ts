import { DebugEvents, Events } from 'nats';
import { cachedPrincipal, FakeNats, liveKey, settle, silentLogger } from '../identity/identity.test-support';
import { PrincipalCache } from '../identity/principal-cache';
import { principalInvalidationTopic, principalInvalidator } from '../identity/principal-invalidation';
import { cachedViewTopic } from './cached-view-topic';
import { InvalidationChannel } from './invalidation-channel';
import { ResponseCache } from './response-cache';

describe(InvalidationChannel.name, () => {
  const SUBJECT = 'T1_gateway.principals.invalidate';
  const VIEW_SUBJECT = 'T1_cache.view.changed';
  let nats: FakeNats;
  let cache: PrincipalCache;
  let responses: ResponseCache;
  let channel: InvalidationChannel;

  const start = (options: { fenceTimeoutMs?: number; confirmTimeoutMs?: number } = {}) =>
    InvalidationChannel.start({
      nc: nats.asConnection(),
      topics: [principalInvalidationTopic(SUBJECT, cache, silentLogger), cachedViewTopic(VIEW_SUBJECT, responses, silentLogger)],
      logger: silentLogger,
      ...options,
    });
  /** Replaces the channel with one on a fresh connection, started with these timeouts. */
  const restart = async (options: { fenceTimeoutMs?: number; confirmTimeoutMs?: number } = {}) => {
    await channel.close();
    nats = new FakeNats();
    channel = await start(options);
  };
  const fill = (orgId = 'org_a') => {
    const { record } = liveKey(orgId);
    cache.set(record.keyId, cachedPrincipal(record), cache.ticket());
    return record.keyId;
  };
  const fillPage = (orgId: string, key = `page of ${orgId}`) => {
    responses.set(key, 'media-channels', orgId, { status: 200, body: Buffer.from('{}') }, responses.ticket());
    return key;
  };

  beforeEach(async () => {
    nats = new FakeNats();
    cache = new PrincipalCache({ ttlMs: 30_000, maxEntries: 100 });
    responses = new ResponseCache({ ttlMs: 30_000, maxBytes: 1 << 20 });
    channel = await start();
  });
  afterEach(async () => {
    await channel.close();
  });

  it('is live once the server has confirmed the subscription', async () => {
    await channel.close();
    nats = new FakeNats();
    nats.autoFlush = false;
    const starting = start();
    await settle();
    expect(nats.flushes).toHaveLength(1);
    nats.flushes[0].resolve();
    channel = await starting;
    expect(channel.isLive()).toBe(true);
  });

  it('evicts the key or the org a principal notice names', () => {
    const [k1, k2, k3] = [fill('org_a'), fill('org_a'), fill('org_b')];
    nats.deliver({ keyId: k3 }, SUBJECT);
    expect(cache.peek(k3)).toBeUndefined();
    nats.deliver({ orgId: 'org_a' }, SUBJECT);
    expect([cache.peek(k1), cache.peek(k2)]).toEqual([undefined, undefined]);
  });

  it("drops the pages of the org a view notice names, and only that org's", () => {
    const [a1, a2, b] = [fillPage('org_a', 'a1'), fillPage('org_a', 'a2'), fillPage('org_b')];
    const keyId = fill('org_a');
    nats.deliver({ view: 'media-channels', tenant: 'org_a' }, VIEW_SUBJECT);
    expect([responses.peek(a1), responses.peek(a2)]).toEqual([undefined, undefined]);
    expect(responses.peek(b)).toBeDefined();
    expect(cache.peek(keyId)).toBeDefined();
  });

  it("drops every tenant's pages on a notice for every tenant (a service's start), keeping principals", () => {
    const [a, b] = [fillPage('org_a'), fillPage('1001')];
    const keyId = fill('org_a');
    nats.deliver({ view: 'retail-templates', tenant: '*' }, VIEW_SUBJECT);
    expect([responses.peek(a), responses.peek(b)]).toEqual([undefined, undefined]);
    expect(cache.peek(keyId)).toBeDefined();
  });

  it('clears only the cache of the topic whose message it cannot read', () => {
    const keyId = fill();
    const page = fillPage('org_a');
    nats.deliver('not json', SUBJECT);
    expect([cache.size, responses.peek(page)]).toEqual([0, expect.anything()]);
    fill();
    nats.deliver({ view: 'no-such-view', tenant: 'org_a' }, VIEW_SUBJECT);
    expect([cache.size, responses.size]).toEqual([1, 0]);
    expect(cache.peek(keyId)).toBeUndefined();
  });

  it('publishes only the identifier, evicts locally and confirms with a round trip', async () => {
    const keyId = fill();
    expect(await principalInvalidator(SUBJECT, cache, channel).keyRevoked(keyId)).toBe(true);
    expect(cache.peek(keyId)).toBeUndefined();
    expect(nats.published).toEqual([{ subject: SUBJECT, data: JSON.stringify({ keyId }) }]);
  });

  it('reports a broadcast the server did not confirm in time', async () => {
    await restart({ confirmTimeoutMs: 20 });
    nats.autoFlush = false;
    expect(await principalInvalidator(SUBJECT, cache, channel).orgAccountsChanged('org_a')).toBe(false);
  });

  it('is bypassed while disconnected and flushes the caches when the subscription is back', async () => {
    const page = fillPage('org_a');
    const before = fill();
    nats.emitStatus(Events.Disconnect);
    await settle();
    expect(channel.isLive()).toBe(false);
    expect(cache.peek(before)).toBeUndefined();
    expect(responses.peek(page)).toBeUndefined();

    // Filled (by whatever path) during the gap: it may have missed broadcasts.
    const during = fill();
    nats.autoFlush = false;
    nats.emitStatus(Events.Reconnect);
    await settle();
    expect(channel.isLive()).toBe(false);
    nats.flushes[0].resolve();
    await settle();
    expect(channel.isLive()).toBe(true);
    expect(cache.peek(during)).toBeUndefined();
  });

  it('is bypassed as soon as the connection is reported stale', async () => {
    nats.emitStatus(DebugEvents.StaleConnection);
    await settle();
    expect(channel.isLive()).toBe(false);
  });

  it('ignores a subscription confirmation that a later disconnect overtook', async () => {
    nats.emitStatus(Events.Disconnect);
    nats.autoFlush = false;
    nats.emitStatus(Events.Reconnect);
    await settle();
    nats.emitStatus(Events.Disconnect);
    await settle();
    nats.flushes[0].resolve();
    await settle();
    expect(channel.isLive()).toBe(false);
  });

  it('shares one round trip among callers that arrived before it was sent, and sends another for later ones', async () => {
    nats.autoFlush = false;
    const first = channel.fence();
    const second = channel.fence();
    const third = channel.fence();
    expect(nats.flushes).toHaveLength(1);
    // The second and third arrived after the first round trip had been sent: it cannot vouch for them.
    nats.flushes[0].resolve();
    expect(await first).toBe(true);
    await settle();
    expect(nats.flushes).toHaveLength(2);
    nats.flushes[1].resolve();
    expect([await second, await third]).toEqual([true, true]);
  });

  it('lets a request reuse a round trip launched after it arrived, but not one launched before', async () => {
    nats.autoFlush = false;
    const before = channel.fence();
    const arrival = channel.mark();
    nats.flushes[0].resolve();
    await before;
    // The completed round trip was sent before the arrival: a new one is needed.
    const first = channel.fence(arrival);
    await settle();
    expect(nats.flushes).toHaveLength(2);
    nats.flushes[1].resolve();
    expect(await first).toBe(true);
    // That one was sent after the arrival, so a second question in the same request costs nothing.
    expect(await channel.fence(arrival)).toBe(true);
    expect(nats.flushes).toHaveLength(2);
  });

  it('stops trusting the cache while a round trip is overdue, and flushes it once the answer comes', async () => {
    await restart({ fenceTimeoutMs: 20 });
    const keyId = fill();
    nats.autoFlush = false;
    expect(await channel.fence()).toBe(false);
    expect(channel.isLive()).toBe(false);
    nats.flushes[0].resolve();
    await settle();
    expect(channel.isLive()).toBe(true);
    expect(cache.peek(keyId)).toBeUndefined();
  });

  it('is not live after close', async () => {
    await channel.close();
    expect(channel.isLive()).toBe(false);
  });
});
