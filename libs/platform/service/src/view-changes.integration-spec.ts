import { connect, type NatsConnection } from 'nats';
import { CACHED_VIEW_CHANGED_SUBJECT, parseCachedViewChange, type CachedViewChange } from '@contracts/domain';
import { createLogger } from '@platform/logging';
import { naming } from '@platform/nats';
import { uniquePrefix } from '@platform/testing';
import { createViewChangeAnnouncer } from './view-changes';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const silent = createLogger({ service: 'view-changes-test', level: 'silent' });

describe('createViewChangeAnnouncer (real NATS)', () => {
  let publisher: NatsConnection;
  let listener: NatsConnection;
  const names = naming(uniquePrefix('vc'));

  beforeAll(async () => {
    [publisher, listener] = await Promise.all([connect({ servers: NATS_URL }), connect({ servers: NATS_URL })]);
  });
  afterAll(async () => {
    await Promise.all([publisher?.close(), listener?.close()]);
  });

  it('has the notice at every live subscriber by the time it resolves true', async () => {
    const received: (CachedViewChange | undefined)[] = [];
    listener.subscribe(names.subject(CACHED_VIEW_CHANGED_SUBJECT), { callback: (_err, msg) => received.push(parseCachedViewChange(msg.data)) });
    await listener.flush();

    const announce = createViewChangeAnnouncer({ nats: publisher, names, logger: silent });
    expect(await announce({ view: 'media-channels', tenant: 'org_a' })).toBe(true);
    // The listener's own round trip comes back after everything routed to it before: the guarantee the gateway's fence relies on.
    await listener.flush();
    expect(received).toEqual([{ view: 'media-channels', tenant: 'org_a' }]);
  });

  it('resolves false, and logs, when the connection cannot carry it', async () => {
    const closed = await connect({ servers: NATS_URL });
    await closed.close();
    const errors: unknown[] = [];
    const logger = { ...silent, error: (...args: unknown[]) => errors.push(args) } as unknown as typeof silent;
    const announce = createViewChangeAnnouncer({ nats: closed, names, logger, confirmTimeoutMs: 200 });
    expect(await announce({ view: 'media-channels', tenant: 'org_b' })).toBe(false);
    expect(errors).toHaveLength(1);
  });
});
