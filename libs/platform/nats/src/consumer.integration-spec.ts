import { once } from 'node:events';
import { DEAD_LETTER_STREAM, DeadLetterHeader, deadLetterSubjectFor } from './consumer.dead-letter';
import type { ConsumerSpec } from './consumer.declare';
import { HandBack, runConsumer, type ConsumedMessage, type MessageHandler, type RunningConsumer } from './consumer.runner';
import { publish } from './nats.publish';
import { bytes, openNatsTestEnv, testLogger, text, waitFor, type NatsTestEnv } from './nats.test-support';
import { ensureStream } from './stream.declare';

describe(runConsumer.name, () => {
  let env: NatsTestEnv;
  let running: RunningConsumer[] = [];
  let consumerCount = 0;

  beforeAll(async () => {
    env = await openNatsTestEnv();
    await ensureStream(env.jsm, env.names.streamSpec({ name: 'TASKS', subjects: ['tasks.>'] }));
    await ensureStream(env.jsm, env.names.streamSpec(DEAD_LETTER_STREAM));
  });
  afterEach(async () => {
    await Promise.all(running.map((consumer) => consumer.stop()));
    running = [];
  });
  afterAll(async () => {
    await env.teardown();
  });

  /** Each test gets its own subject and durable, so leftovers of one never reach another. */
  async function start(handler: MessageHandler, overrides: Partial<ConsumerSpec> = {}, batch?: number, retryBackoff = { initialMs: 50, maxMs: 200 }) {
    consumerCount += 1;
    const durable = `worker${consumerCount}`;
    const subject = env.names.subject(`tasks.t${consumerCount}`);
    const spec = env.names.consumerSpec({
      stream: 'TASKS',
      durable,
      filterSubject: `tasks.t${consumerCount}`,
      maxDeliver: 3,
      ackWaitMs: 1_000,
      deadLetterSubject: deadLetterSubjectFor('TASKS', durable),
      ...overrides,
    });
    const consumer = await runConsumer({
      js: env.js,
      jsm: env.jsm,
      spec,
      handler,
      logger: testLogger,
      retryBackoff,
      fetchExpiresMs: 1_000,
      batch,
    });
    running.push(consumer);
    return { consumer, spec, subject };
  }

  /** A second instance of a consumer `start` declared (as another replica runs), stopped with the rest. */
  async function anotherInstance(spec: ConsumerSpec, handler: MessageHandler) {
    running.push(await runConsumer({ js: env.js, jsm: env.jsm, spec, handler, logger: testLogger, fetchExpiresMs: 1_000 }));
  }

  const consumerState = (spec: ConsumerSpec) => env.jsm.consumers.info(spec.stream, spec.durable);

  it('acks after the handler succeeds and gets a failed message redelivered until it does', async () => {
    const deliveries: ConsumedMessage[] = [];
    const applied: string[] = [];
    const { spec, subject } = await start(async (message) => {
      deliveries.push(message);
      if (message.deliveryCount === 1) throw new Error('transient failure');
      applied.push(text(message.data));
    });

    await publish(env.js, subject, bytes('task-1'), { msgId: 'task-1', headers: { 'Trace-Id': 't1' } });
    await waitFor(() => applied.length === 1, 5_000, 'the retried delivery');
    await waitFor(async () => (await consumerState(spec)).num_ack_pending === 0, 5_000, 'the ack');

    expect(deliveries.map((message) => message.deliveryCount)).toEqual([1, 2]);
    expect(deliveries[1]).toMatchObject({ subject, msgId: 'task-1', headers: expect.objectContaining({ 'Trace-Id': 't1' }) });
    expect(applied).toEqual(['task-1']);
    const state = await consumerState(spec);
    expect(state.num_pending).toBe(0);
    expect(state.ack_floor.stream_seq).toBe(deliveries[0].streamSequence);
  });

  it('dead-letters a message that fails maxDeliver times, with headers telling why, and stops retrying it', async () => {
    let attempts = 0;
    const { spec, subject } = await start(async () => {
      attempts += 1;
      throw new Error(`renderer crashed\non attempt ${attempts}`);
    });
    const deadLetters = env.names.stream(DEAD_LETTER_STREAM.name);

    await publish(env.js, subject, bytes('poison'), { msgId: 'poison-1' });
    await waitFor(
      async () => (await env.jsm.streams.info(deadLetters, { subjects_filter: spec.deadLetterSubject })).state.subjects?.[spec.deadLetterSubject] === 1,
      5_000,
      'the dead letter',
    );

    const deadLetter = await env.jsm.streams.getMessage(deadLetters, { last_by_subj: spec.deadLetterSubject });
    expect(text(deadLetter.data)).toBe('poison');
    expect(deadLetter.header.get(DeadLetterHeader.OriginalSubject)).toBe(subject);
    expect(deadLetter.header.get(DeadLetterHeader.OriginalMsgId)).toBe('poison-1');
    expect(deadLetter.header.get(DeadLetterHeader.Error)).toBe('renderer crashed on attempt 3');
    expect(deadLetter.header.get(DeadLetterHeader.DeliveryCount)).toBe('3');
    expect(deadLetter.header.get(DeadLetterHeader.Consumer)).toBe(spec.durable);

    // Terminated, not merely nak'ed: no fourth attempt arrives and nothing is left pending.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(attempts).toBe(3);
    const state = await consumerState(spec);
    expect(state.num_ack_pending).toBe(0);
    expect(state.num_pending).toBe(0);
  });

  it("keeps a slow handler's delivery alive past ack wait instead of letting it be redelivered", async () => {
    const deliveryCounts: number[] = [];
    let finished = false;
    const { spec, subject } = await start(async (message) => {
      deliveryCounts.push(message.deliveryCount);
      await new Promise((resolve) => setTimeout(resolve, 2_200));
      finished = true;
    });

    await publish(env.js, subject, bytes('slow'), { msgId: 'slow-1' });
    await waitFor(() => finished, 5_000, 'the slow handler');
    await waitFor(async () => (await consumerState(spec)).num_ack_pending === 0, 2_000, 'the ack');

    expect(deliveryCounts).toEqual([1]);
    expect((await consumerState(spec)).num_redelivered).toBe(0);
  });

  it('stop() waits for the handler in flight, acks its message, and takes no new ones', async () => {
    let release: () => void = () => undefined;
    const handled: string[] = [];
    const { consumer, spec, subject } = await start(async (message) => {
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      handled.push(text(message.data));
    });

    await publish(env.js, subject, bytes('in-flight'), { msgId: 'in-flight' });
    await waitFor(async () => (await consumerState(spec)).num_ack_pending === 1, 5_000, 'the delivery');

    let stopped = false;
    const stopping = consumer.stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stopped).toBe(false);

    release();
    await stopping;
    expect(handled).toEqual(['in-flight']);
    expect((await consumerState(spec)).num_ack_pending).toBe(0);

    await publish(env.js, subject, bytes('after-stop'), { msgId: 'after-stop' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(handled).toEqual(['in-flight']);
    expect((await consumerState(spec)).num_pending).toBe(1);
  });

  it('handles up to `batch` messages at once', async () => {
    let concurrent = 0;
    let peak = 0;
    let done = 0;
    const { subject } = await start(async () => {
      concurrent += 1;
      peak = Math.max(peak, concurrent);
      await new Promise((resolve) => setTimeout(resolve, 100));
      concurrent -= 1;
      done += 1;
    });
    await Promise.all(Array.from({ length: 25 }, (_, i) => publish(env.js, subject, bytes(`m${i}`), { msgId: `m${i}` })));
    await waitFor(() => done === 25, 5_000, 'all messages');
    expect(peak).toBeGreaterThan(1);
    expect(peak).toBeLessThanOrEqual(10);
  });

  it('handles other messages while a handler waits in idle, and lets it go on before pulling more', async () => {
    const events: string[] = [];
    const gate = () => {
      let open!: () => void;
      const opened = new Promise<void>((resolve) => (open = resolve));
      return { open, opened };
    };
    const lockFreed = gate();
    const secondMayEnd = gate();
    const { subject } = await start(
      async (message) => {
        const name = text(message.data);
        events.push(`${name} started`);
        if (name === 'waiting') {
          await message.idle(() => lockFreed.opened);
          events.push('waiting went on');
        }
        if (name === 'second') await secondMayEnd.opened;
        events.push(`${name} ended`);
      },
      {},
      1,
    );
    await publish(env.js, subject, bytes('waiting'), { msgId: 'waiting' });
    await waitFor(() => events.includes('waiting started'), 5_000, 'the waiting message');
    await publish(env.js, subject, bytes('second'), { msgId: 'second' });
    // With one slot, the second starts only because the first gave its slot back.
    await waitFor(() => events.includes('second started'), 5_000, 'the second message');

    lockFreed.open();
    await publish(env.js, subject, bytes('third'), { msgId: 'third' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The waiting handler has no slot until the second ends, and nothing new is pulled before it.
    expect(events).toEqual(['waiting started', 'second started']);
    secondMayEnd.open();
    await waitFor(() => events.includes('third ended'), 5_000, 'the third message');
    expect(events).toEqual(['waiting started', 'second started', 'second ended', 'waiting went on', 'waiting ended', 'third started', 'third ended']);
  });

  it('tells a running handler it is stopping; a message it hands back goes at once to another instance, not after ack wait', async () => {
    const seen: string[] = [];
    // Ack wait and retry delay far beyond the test: a redelivery seen here can only come from the hand back.
    const { consumer, spec, subject } = await start(
      async (message) => {
        seen.push(`first instance, delivery ${message.deliveryCount}`);
        await once(message.stopping, 'abort');
        throw new HandBack();
      },
      { ackWaitMs: 60_000 },
      undefined,
      { initialMs: 60_000, maxMs: 60_000 },
    );
    await publish(env.js, subject, bytes('long'), { msgId: 'long' });
    await waitFor(() => seen.length === 1, 5_000, 'the first delivery');
    // stop() would wait for ever on a handler that never looked at `stopping`.
    await consumer.stop();

    await anotherInstance(spec, async (message) => {
      // Its delivery count is the server's business (2.9 does not always count an immediate nak); the message is the same.
      seen.push(`other instance: ${message.msgId}, stopping ${message.stopping.aborted}`);
    });
    await waitFor(() => seen.length === 2, 4_000, 'the handed-back message on the other instance');
    expect(seen).toEqual(['first instance, delivery 1', 'other instance: long, stopping false']);
    await waitFor(async () => (await consumerState(spec)).num_ack_pending === 0, 5_000, 'the ack');
  });

  it('tells a handler waiting in idle that it is stopping too: it hands back with the one holding the slot, and stop() ends', async () => {
    const seen: string[] = [];
    const untilStopping = async (message: ConsumedMessage) => void (await once(message.stopping, 'abort'));
    const { consumer, spec, subject } = await start(
      async (message) => {
        const name = text(message.data);
        seen.push(`${name} started`);
        // The first gives its slot up while it waits; the second takes it. Both wait for the stop.
        if (name === 'waiting') await message.idle(() => untilStopping(message));
        else await untilStopping(message);
        throw new HandBack();
      },
      { ackWaitMs: 60_000 },
      1,
      { initialMs: 60_000, maxMs: 60_000 },
    );
    // Ids of their own: the stream drops a message id it saw within its duplicate window (another test's).
    await publish(env.js, subject, bytes('waiting'), { msgId: 'stop-waiting' });
    await waitFor(() => seen.includes('waiting started'), 4_000, 'the waiting message');
    await publish(env.js, subject, bytes('busy'), { msgId: 'stop-busy' });
    await waitFor(() => seen.includes('busy started'), 4_000, 'the busy message');
    await consumer.stop();

    const redelivered: string[] = [];
    await anotherInstance(spec, async (m) => void redelivered.push(text(m.data)));
    await waitFor(() => redelivered.length === 2, 4_000, 'both handed-back messages on another instance');
    expect(redelivered.sort()).toEqual(['busy', 'waiting']);
  });
});
