import { randomBytes } from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import type { JetStreamClient } from 'nats';
import { withRequestId } from '@platform/logging';
import { processRegistry } from '@platform/telemetry';
import { bytes, openNatsTestEnv, testLogger, text, waitFor, type NatsTestEnv } from './nats.test-support';
import { enqueueOutbox } from './outbox.enqueue';
import { OUTBOX_MIGRATIONS, OUTBOX_TABLE } from './outbox.migration';
import { startOutboxRelay, type OutboxRelay, type OutboxRelayOptions } from './outbox.relay';
import { ensureStream } from './stream.declare';

const MYSQL_URL = process.env['MYSQL_URL'] ?? 'mysql://root@127.0.0.1:3306';

describe(startOutboxRelay.name, () => {
  const schema = `t_${randomBytes(4).toString('hex')}`;
  let admin: Knex;
  let knex: Knex;
  let env: NatsTestEnv;
  let streamName: string;
  let relays: OutboxRelay[] = [];
  let eventCount = 0;

  beforeAll(async () => {
    admin = knexFactory({ client: 'mysql2', connection: MYSQL_URL, pool: { min: 0, max: 1 } });
    await admin.raw('CREATE DATABASE ??', [schema]);
    knex = knexFactory({ client: 'mysql2', connection: `${MYSQL_URL}/${schema}`, pool: { min: 0, max: 6 } });
    for (const migration of OUTBOX_MIGRATIONS) await migration.up(knex);
    env = await openNatsTestEnv();
    const spec = env.names.streamSpec({ name: 'EVENTS', subjects: ['events.>'], duplicateWindowMs: 60_000 });
    streamName = spec.name;
    await ensureStream(env.jsm, spec);
  });
  afterEach(async () => {
    await Promise.all(relays.map((relay) => relay.stop()));
    relays = [];
  });
  afterAll(async () => {
    await knex?.destroy();
    await admin?.raw('DROP DATABASE IF EXISTS ??', [schema]);
    await admin?.destroy();
    await env?.teardown();
  });

  /** The poll loop is slowed right down so each test drives the relay through flush(). */
  function relay(overrides: Partial<OutboxRelayOptions> = {}) {
    const started = startOutboxRelay({
      knex,
      js: env.js,
      logger: testLogger,
      pollMs: 60_000,
      retryBackoff: { initialMs: 100, maxMs: 400 },
      ...overrides,
    });
    relays.push(started);
    return started;
  }

  const nextEvent = () => {
    eventCount += 1;
    return { subject: env.names.subject(`events.e${eventCount}`), msgId: `event-${eventCount}`, payload: bytes(`payload-${eventCount}`) };
  };
  const storedOn = async (subject: string) => (await env.jsm.streams.info(streamName, { subjects_filter: subject })).state.subjects?.[subject] ?? 0;
  const row = (msgId: string) => knex(OUTBOX_TABLE).where({ msg_id: msgId }).first();

  it('relays committed rows when woken instead of at the next poll', async () => {
    // pollMs is a minute: without wake() nothing below would be published within the test's time.
    const woken = relay();
    const published = async (msgId: string) => {
      for (const deadline = Date.now() + 5_000; Date.now() < deadline;) {
        if ((await row(msgId)).published_at) return true;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return false;
    };
    // Past the first idle wait of a relay just started.
    const first = nextEvent();
    await knex.transaction((trx) => enqueueOutbox(trx, first));
    woken.wake();
    expect(await published(first.msgId)).toBe(true);
    // The loop is idle again; a second wake relays the next row.
    const second = nextEvent();
    await knex.transaction((trx) => enqueueOutbox(trx, second));
    woken.wake();
    expect(await published(second.msgId)).toBe(true);
    expect(await storedOn(second.subject)).toBe(1);
    // A row nobody wakes the relay for waits for the poll.
    const third = nextEvent();
    await knex.transaction((trx) => enqueueOutbox(trx, third));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await row(third.msgId)).published_at).toBeNull();
    expect(await woken.flush()).toBe(1);
  });

  it('looks for pending rows with one query and no transaction when nothing is pending', async () => {
    const event = nextEvent();
    await knex.transaction((trx) => enqueueOutbox(trx, event));
    const idle = relay();
    expect(await idle.flush()).toBe(1);
    // The published row stays (kept for inspection); an idle pass must not lock, scan or begin for it.
    const statements: string[] = [];
    const record = (query: { sql: string }) => statements.push(query.sql);
    knex.on('query', record);
    try {
      expect(await idle.flush()).toBe(0);
    } finally {
      knex.off('query', record);
    }
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(/^select max\(`id`\) as `maxId` from `outbox` where `published_at` is null$/);
  });

  it('relays rows written in a committed transaction, in order, and marks them published', async () => {
    const events = [nextEvent(), nextEvent(), nextEvent()];
    await knex.transaction(async (trx) => {
      for (const event of events) await enqueueOutbox(trx, event);
    });

    expect(await relay().flush()).toBe(3);

    const sequences: number[] = [];
    for (const event of events) {
      const stored = await env.jsm.streams.getMessage(streamName, { last_by_subj: event.subject });
      expect(text(stored.data)).toBe(text(event.payload));
      expect(stored.header.get('Nats-Msg-Id')).toBe(event.msgId);
      sequences.push(stored.seq);
      expect((await row(event.msgId)).published_at).toBeInstanceOf(Date);
    }
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
  });

  it("publishes the request id of the work that recorded an event as its header, and counts the outbox's backlog", async () => {
    const started = relay();
    const metric = async (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(await processRegistry.getSingleMetricAsString(name))?.[1]);
    const event = nextEvent();
    await withRequestId('req-outbox-0001', () => knex.transaction((trx) => enqueueOutbox(trx, event)));
    expect(await metric('outbox_pending_events')).toBeGreaterThanOrEqual(1);
    const publishedBefore = await metric('outbox_published_total');

    await started.flush();
    const stored = await env.jsm.streams.getMessage(streamName, { last_by_subj: event.subject });
    expect(stored.header.get('x-request-id')).toBe('req-outbox-0001');
    expect(await metric('outbox_pending_events')).toBe(0);
    expect(await metric('outbox_published_total')).toBe(publishedBefore + 1);
  });

  it('never relays rows of a rolled-back transaction', async () => {
    const event = nextEvent();
    await expect(
      knex.transaction(async (trx) => {
        await enqueueOutbox(trx, event);
        throw new Error('business rule failed after the event was written');
      }),
    ).rejects.toThrow(/business rule/);

    expect(await relay().flush()).toBe(0);
    expect(await storedOn(event.subject)).toBe(0);
    expect(await row(event.msgId)).toBeUndefined();
  });

  it('refuses to enqueue outside a transaction', async () => {
    await expect(enqueueOutbox(knex as unknown as Knex.Transaction, nextEvent())).rejects.toThrow(/inside the transaction/);
  });

  it('re-publishes after a crash between publish and mark, and the stream keeps one copy', async () => {
    const event = nextEvent();
    await knex.transaction((trx) => enqueueOutbox(trx, event));

    // JetStream accepts the message, then the relay dies before it can record that.
    const crashingAfterPublish = new Proxy(env.js, {
      get(target, property, receiver) {
        if (property !== 'publish') return Reflect.get(target, property, receiver);
        return async (...args: Parameters<JetStreamClient['publish']>) => {
          await target.publish(...args);
          throw new Error('relay process killed');
        };
      },
    });
    expect(await relay({ js: crashingAfterPublish }).flush()).toBe(0);
    expect(await storedOn(event.subject)).toBe(1);
    expect(await row(event.msgId)).toMatchObject({ published_at: null, attempts: 1 });

    const healthy = relay();
    await waitFor(async () => (await healthy.flush()) === 1, 3_000, 'the retry after backoff');

    expect(await storedOn(event.subject)).toBe(1);
    expect((await row(event.msgId)).published_at).toBeInstanceOf(Date);
  });

  it('counts a failed publish on its row, backs that row off, and keeps relaying the rows behind it', async () => {
    const unroutable = { ...nextEvent(), subject: env.names.subject('nowhere.captures.this') };
    const behind = nextEvent();
    await knex.transaction(async (trx) => {
      await enqueueOutbox(trx, unroutable);
      await enqueueOutbox(trx, behind);
    });
    const sut = relay();

    expect(await sut.flush()).toBe(0);
    const failed = await row(unroutable.msgId);
    expect(failed).toMatchObject({ attempts: 1, published_at: null });
    expect(failed.last_error).toEqual(expect.any(String));
    expect(failed.next_attempt_at.getTime()).toBeGreaterThan(failed.created_at.getTime());

    expect(await sut.flush()).toBe(1);
    expect(await storedOn(behind.subject)).toBe(1);

    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await sut.flush()).toBe(0);
    expect((await row(unroutable.msgId)).attempts).toBe(2);
    await knex(OUTBOX_TABLE).where({ msg_id: unroutable.msgId }).del();
  });

  it('lets relays share the table: every row is published exactly once', async () => {
    const events = Array.from({ length: 60 }, nextEvent);
    await knex.transaction(async (trx) => {
      for (const event of events) await enqueueOutbox(trx, event);
    });
    let publishCalls = 0;
    const counting = new Proxy(env.js, {
      get(target, property, receiver) {
        if (property !== 'publish') return Reflect.get(target, property, receiver);
        return (...args: Parameters<JetStreamClient['publish']>) => {
          publishCalls += 1;
          return target.publish(...args);
        };
      },
    });

    const counts = await Promise.all([1, 2, 3].map(() => relay({ js: counting, batchSize: 5 }).flush()));

    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(60);
    expect(publishCalls).toBe(60);
    for (const event of [events[0], events[59]]) expect(await storedOn(event.subject)).toBe(1);
  });

  it("never holds back a writer's commit while a publish hangs (NATS down): the relay locks its rows, not the gap after them", async () => {
    const pending = nextEvent();
    await knex.transaction((trx) => enqueueOutbox(trx, pending));
    let releasePublish: () => void = () => undefined;
    const publishStarted = new Promise<void>((started) => {
      const hanging = new Proxy(env.js, {
        get(target, property, receiver) {
          if (property !== 'publish') return Reflect.get(target, property, receiver);
          return async () => {
            started();
            await new Promise<void>((release) => (releasePublish = release));
            throw new Error('publish timed out');
          };
        },
      });
      void relay({ js: hanging }).flush();
    });
    await publishStarted;
    // Like the client's publish timeout: the hang ends by itself, so a blocked writer shows as a slow write.
    const timeout = setTimeout(() => releasePublish(), 2_500);

    const writeStartedAt = Date.now();
    await knex.transaction((trx) => enqueueOutbox(trx, nextEvent()));
    const writeMs = Date.now() - writeStartedAt;
    clearTimeout(timeout);
    releasePublish();

    expect(writeMs).toBeLessThan(1_000);
  });

  it('relays on its own while running, without flush()', async () => {
    relay({ pollMs: 50 });
    const event = nextEvent();
    await knex.transaction((trx) => enqueueOutbox(trx, event));
    await waitFor(async () => (await storedOn(event.subject)) === 1, 3_000, 'the poll loop');
  });
});
