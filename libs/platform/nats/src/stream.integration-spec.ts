import { ensureConsumer } from './consumer.declare';
import { publish } from './nats.publish';
import { bytes, openNatsTestEnv, type NatsTestEnv } from './nats.test-support';
import { ensureStream } from './stream.declare';

describe(ensureStream.name, () => {
  let env: NatsTestEnv;

  beforeAll(async () => {
    env = await openNatsTestEnv();
  });
  afterAll(async () => {
    await env.teardown();
  });

  it('creates the stream once and leaves it untouched when declared again', async () => {
    const spec = env.names.streamSpec({ name: 'IDEMPOTENT', subjects: ['idempotent.>'], maxAgeMs: 60_000, duplicateWindowMs: 10_000 });
    const first = await ensureStream(env.jsm, spec);
    await publish(env.js, env.names.subject('idempotent.a'), bytes('kept'), { msgId: 'm1' });
    const second = await ensureStream(env.jsm, spec);

    expect(second.created).toBe(first.created);
    expect(second.config.subjects).toEqual([env.names.subject('idempotent.>')]);
    expect(second.state.messages).toBe(1);
  });

  it('brings an existing stream to a changed spec without losing its messages', async () => {
    const spec = env.names.streamSpec({ name: 'CHANGING', subjects: ['changing.a'] });
    await ensureStream(env.jsm, spec);
    await publish(env.js, env.names.subject('changing.a'), bytes('kept'), { msgId: 'm1' });

    const updated = await ensureStream(env.jsm, { ...spec, subjects: [...spec.subjects, env.names.subject('changing.b')], maxAgeMs: 3_600_000 });

    expect(updated.config.subjects).toEqual(expect.arrayContaining([env.names.subject('changing.a'), env.names.subject('changing.b')]));
    expect(updated.config.max_age).toBe(3_600_000 * 1_000_000);
    expect(updated.state.messages).toBe(1);
  });

  it('survives several processes declaring the same stream at the same moment', async () => {
    const spec = env.names.streamSpec({ name: 'RACE', subjects: ['race.>'] });
    const results = await Promise.all([1, 2, 3, 4].map(() => ensureStream(env.jsm, spec)));
    expect(new Set(results.map((info) => info.config.name))).toEqual(new Set([spec.name]));
  });

  it('refuses a duplicate window longer than the retention', async () => {
    await expect(ensureStream(env.jsm, env.names.streamSpec({ name: 'BAD', subjects: ['bad.>'], maxAgeMs: 1_000, duplicateWindowMs: 5_000 }))).rejects.toThrow(
      /duplicateWindowMs/,
    );
  });
});

describe(publish.name, () => {
  let env: NatsTestEnv;

  beforeAll(async () => {
    env = await openNatsTestEnv();
  });
  afterAll(async () => {
    await env.teardown();
  });

  it('stores a message published twice with the same msgId once', async () => {
    const spec = env.names.streamSpec({ name: 'DEDUP', subjects: ['dedup.>'], duplicateWindowMs: 60_000 });
    await ensureStream(env.jsm, spec);
    const subject = env.names.subject('dedup.x');

    const first = await publish(env.js, subject, bytes('once'), { msgId: 'same-fact' });
    const retry = await publish(env.js, subject, bytes('once'), { msgId: 'same-fact' });
    await publish(env.js, subject, bytes('other'), { msgId: 'another-fact' });

    expect(first.duplicate).toBe(false);
    expect(retry).toMatchObject({ duplicate: true, seq: first.seq });
    expect((await env.jsm.streams.info(spec.name)).state.messages).toBe(2);
    const stored = await env.jsm.streams.getMessage(spec.name, { seq: first.seq });
    expect(stored.header.get('Nats-Msg-Id')).toBe('same-fact');
  });

  it('refuses to publish without a msgId', async () => {
    await expect(publish(env.js, env.names.subject('dedup.x'), bytes('x'), { msgId: '' })).rejects.toThrow(/msgId is required/);
  });
});

describe(ensureConsumer.name, () => {
  let env: NatsTestEnv;

  beforeAll(async () => {
    env = await openNatsTestEnv();
    await ensureStream(env.jsm, env.names.streamSpec({ name: 'WORK', subjects: ['work.>'] }));
  });
  afterAll(async () => {
    await env.teardown();
  });

  it('creates a durable explicit-ack consumer and updates it in place when the spec changes', async () => {
    const spec = env.names.consumerSpec({
      stream: 'WORK',
      durable: 'worker',
      filterSubject: 'work.a',
      maxDeliver: 3,
      ackWaitMs: 1_000,
      deadLetterSubject: 'dlq.WORK.worker',
    });
    const created = await ensureConsumer(env.jsm, spec);
    const again = await ensureConsumer(env.jsm, spec);
    const changed = await ensureConsumer(env.jsm, { ...spec, ackWaitMs: 2_000, filterSubject: env.names.subject('work.>') });

    expect(created.config).toMatchObject({ durable_name: 'worker', ack_policy: 'explicit', filter_subject: env.names.subject('work.a') });
    expect(again.created).toBe(created.created);
    expect(changed.created).toBe(created.created);
    expect(changed.config).toMatchObject({ ack_wait: 2_000 * 1_000_000, filter_subject: env.names.subject('work.>') });
  });
});
