import { DebugEvents, Events } from 'nats';
import { cachedPrincipal, FakeNats, liveKey, settle, silentLogger } from './identity.test-support';
import { PrincipalCache } from './principal-cache';
import { RevocationChannel } from './revocation-broadcast';

describe(RevocationChannel.name, () => {
  const SUBJECT = 'T1_gateway.principals.invalidate';
  let nats: FakeNats;
  let cache: PrincipalCache;
  let channel: RevocationChannel;

  const start = (options: { fenceTimeoutMs?: number; confirmTimeoutMs?: number } = {}) =>
    RevocationChannel.start({ nc: nats.asConnection(), subject: SUBJECT, cache, logger: silentLogger, ...options });
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

  beforeEach(async () => {
    nats = new FakeNats();
    cache = new PrincipalCache({ ttlMs: 30_000, maxEntries: 100 });
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

  it('evicts the key or the org a broadcast names', () => {
    const [k1, k2, k3] = [fill('org_a'), fill('org_a'), fill('org_b')];
    nats.deliver({ keyId: k3 });
    expect(cache.peek(k3)).toBeUndefined();
    nats.deliver({ orgId: 'org_a' });
    expect([cache.peek(k1), cache.peek(k2)]).toEqual([undefined, undefined]);
  });

  it('flushes everything on a message it cannot read', () => {
    fill();
    nats.deliver('not json');
    expect(cache.size).toBe(0);
  });

  it('publishes only the identifier, evicts locally and confirms with a round trip', async () => {
    const keyId = fill();
    expect(await channel.broadcast({ keyId })).toBe(true);
    expect(cache.peek(keyId)).toBeUndefined();
    expect(nats.published).toEqual([{ subject: SUBJECT, data: JSON.stringify({ keyId }) }]);
  });

  it('reports a broadcast the server did not confirm in time', async () => {
    await restart({ confirmTimeoutMs: 20 });
    nats.autoFlush = false;
    expect(await channel.broadcast({ orgId: 'org_a' })).toBe(false);
  });

  it('is bypassed while disconnected and flushes the cache when the subscription is back', async () => {
    const before = fill();
    nats.emitStatus(Events.Disconnect);
    await settle();
    expect(channel.isLive()).toBe(false);
    expect(cache.peek(before)).toBeUndefined();

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
