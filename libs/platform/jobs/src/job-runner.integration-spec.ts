import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { createLogger } from '@platform/logging';
import { waitUntil } from '@platform/testing';
import { closeNats, connectNats, DEAD_LETTER_STREAM, ensureStream, naming, publish, runConsumer, type RunningConsumer } from '@platform/nats';
import type { JetStreamManager, NatsConnection } from 'nats';
import { decodeJobProgress, type JobProgress } from './job-progress.codec';
import { JOB_PROGRESS_STREAM, jobProgressConsumerSpec } from './job-progress.stream';
import { encodeJobRequest, JOB_REQUEST_STREAM, prefixedJobRequestSubject } from './job-request';
import { JobFailed, JobHandedBack, runJobConsumer, type JobHandler } from './job-runner';
import { applyJobProgress, type QueueView } from './queue-view.reducer';

interface WorkerOptions {
  cleanup?: JobHandler['cleanup'];
  failed?: JobHandler['failed'];
  concurrency?: number;
  maxDeliver?: number;
}

const logger = createLogger({ service: 'platform-jobs-runner-test', level: 'silent' });

describe(runJobConsumer.name, () => {
  const prefix = `T${randomBytes(4).toString('hex')}_`;
  const names = naming(prefix);
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  const running: RunningConsumer[] = [];
  const events = new Map<string, JobProgress[]>();
  const views = new Map<string, QueueView>();

  beforeAll(async () => {
    nc = await connectNats({ url: process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222', name: 'platform-jobs-runner-test', logger });
    jsm = await nc.jetstreamManager();
    for (const stream of [JOB_REQUEST_STREAM, JOB_PROGRESS_STREAM, DEAD_LETTER_STREAM]) await ensureStream(jsm, names.streamSpec(stream));
    running.push(
      await runConsumer({
        js: nc.jetstream(),
        jsm,
        spec: names.consumerSpec(jobProgressConsumerSpec('runner-test-view')),
        logger,
        fetchExpiresMs: 1_000,
        handler: async ({ data }) => {
          const event = decodeJobProgress(data);
          events.set(event.queueId, [...(events.get(event.queueId) ?? []), event]);
          views.set(event.queueId, applyJobProgress(views.get(event.queueId), event));
        },
      }),
    );
  });

  afterAll(async () => {
    for (const consumer of running) await consumer.stop();
    if (jsm) for await (const name of jsm.streams.names()) if (name.startsWith(prefix)) await jsm.streams.delete(name);
    if (nc) await closeNats(nc);
  });

  /** A worker of the kind (one durable per kind); `runKind` keeps it running until the suite ends, a spec that stops it mid-job uses this. */
  const worker = (kind: string, run: JobHandler['run'], { cleanup, failed, concurrency, maxDeliver = 3 }: WorkerOptions = {}) =>
    runJobConsumer({ nats: nc, names, logger, durable: `runner-${kind}`, handler: { kind, run, cleanup, failed }, maxDeliver, concurrency });

  async function runKind(kind: string, run: JobHandler['run'], cleanup?: JobHandler['cleanup'], concurrency?: number) {
    running.push(await worker(kind, run, { cleanup, concurrency }));
  }

  const request = (kind: string, queueId: string) =>
    publish(nc.jetstream(), prefixedJobRequestSubject(prefix, kind), encodeJobRequest({ queueId, accountId: 9, kind, payload: { n: 1 } }), {
      msgId: `job:${queueId}`,
    });

  async function ended(queueId: string): Promise<QueueView> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const view = views.get(queueId);
      if (view && (view.status === 'Completed' || view.status === 'Failed')) return view;
      if (Date.now() > deadline) throw new Error(`queue ${queueId} did not end: ${JSON.stringify(view)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  const terminals = (queueId: string) => (events.get(queueId) ?? []).filter((e) => e.status === 3 || e.status === 4);

  it('reports Processing, the handler progress and one Completed, then cleans up', async () => {
    const cleaned: string[] = [];
    await runKind(
      'ok',
      async (_job, sink) => {
        await sink.progress(1, 2, 'half');
        return { totalItems: 2, totalProcessed: 2, message: 'done' };
      },
      async (job) => {
        cleaned.push(job.queueId);
      },
    );
    await request('ok', 'q-ok');
    expect(await ended('q-ok')).toMatchObject({ status: 'Completed', totalItems: 2, totalProcessed: 2, message: 'done', accountId: 9 });
    expect(events.get('q-ok')?.map((e) => e.message)).toEqual(['Processing', 'half', 'done']);
    expect(cleaned).toEqual(['q-ok']);
  });

  it('fails at once, without a retry, on JobFailed, with its message', async () => {
    let runs = 0;
    await runKind('refused', async () => {
      runs++;
      throw new JobFailed('The zip entry "../x" is not allowed');
    });
    await request('refused', 'q-refused');
    expect(await ended('q-refused')).toMatchObject({ status: 'Failed', message: 'The zip entry "../x" is not allowed' });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(runs).toBe(1);
    expect(terminals('q-refused')).toHaveLength(1);
  });

  it('retries a transient error and completes once it passes', async () => {
    let runs = 0;
    await runKind('flaky', async () => {
      if (++runs < 2) throw new Error('connection reset');
      return { totalItems: 1, totalProcessed: 1, message: 'ok at last' };
    });
    await request('flaky', 'q-flaky');
    expect(await ended('q-flaky')).toMatchObject({ status: 'Completed', message: 'ok at last' });
    expect(runs).toBe(2);
    expect(terminals('q-flaky')).toHaveLength(1);
  });

  it('gives up as Failed after the last delivery of an error that persists', async () => {
    let runs = 0;
    await runKind('broken', async () => {
      runs++;
      throw new Error('still down');
    });
    await request('broken', 'q-broken');
    expect(await ended('q-broken')).toMatchObject({ status: 'Failed', message: 'Failed after 3 attempts.' });
    expect(runs).toBe(3);
    expect(terminals('q-broken')).toHaveLength(1);
  });

  it('runs other jobs while one waits in idle, its slot free, and then finishes that one', async () => {
    let freeLock!: () => void;
    const lockFreed = new Promise<void>((resolve) => (freeLock = resolve));
    await runKind(
      'idle',
      async (job, sink) => {
        if (job.queueId === 'q-idle-waiting') {
          await sink.progress(0, 0, 'Waiting');
          await sink.idle(() => lockFreed);
        }
        return { totalItems: 1, totalProcessed: 1, message: `${job.queueId} done` };
      },
      undefined,
      1,
    );
    await request('idle', 'q-idle-waiting');
    await request('idle', 'q-idle-other');
    // One slot: the other job completes only because the waiting one gave its slot up.
    expect(await ended('q-idle-other')).toMatchObject({ status: 'Completed', message: 'q-idle-other done' });
    expect(views.get('q-idle-waiting')).toMatchObject({ status: 'Processing', message: 'Waiting' });
    freeLock();
    expect(await ended('q-idle-waiting')).toMatchObject({ status: 'Completed', message: 'q-idle-waiting done' });
    expect(terminals('q-idle-waiting')).toHaveLength(1);
  });

  it('gives a job back at shutdown: the queue says so, and another worker takes it over at once and completes it', async () => {
    let started = 0;
    const first = await worker('handback', async (_job, sink) => {
      started++;
      await sink.progress(40, 100, 'reading');
      await once(sink.stopping, 'abort');
      throw new JobHandedBack();
    });
    await request('handback', 'q-handback');
    await waitUntil(() => views.get('q-handback')?.message === 'reading', { what: 'the job to report its progress' });
    // Resolves only because the job stopped when told: it would otherwise run for ever.
    await first.stop();
    await waitUntil(() => (views.get('q-handback')?.message ?? '').startsWith('The worker running this job is shutting down.'), {
      what: 'the hand back on the queue',
    });
    expect(views.get('q-handback')).toMatchObject({ status: 'Processing', totalProcessed: 40, totalItems: 100 });

    running.push(await worker('handback', async () => ({ totalItems: 100, totalProcessed: 100, message: 'done elsewhere' })));
    expect(await ended('q-handback')).toMatchObject({ status: 'Completed', message: 'done elsewhere' });
    expect(started).toBe(1);
    expect(terminals('q-handback')).toHaveLength(1);
  });

  it('never tells a job on its last delivery to stop: it runs to its end through the shutdown', async () => {
    let finish!: () => void;
    const mayFinish = new Promise<void>((resolve) => (finish = resolve));
    let stoppingSeen: boolean | undefined;
    const only = await worker(
      'lastdelivery',
      async (_job, sink) => {
        await sink.progress(1, 2, 'half');
        await mayFinish;
        stoppingSeen = sink.stopping.aborted;
        return { totalItems: 2, totalProcessed: 2, message: 'finished while stopping' };
      },
      { maxDeliver: 1 },
    );
    await request('lastdelivery', 'q-last');
    await waitUntil(() => views.get('q-last')?.message === 'half', { what: 'the job to report its progress' });
    const stopped = only.stop();
    await new Promise((resolve) => setTimeout(resolve, 100));
    finish();
    await stopped;
    expect(stoppingSeen).toBe(false);
    expect(await ended('q-last')).toMatchObject({ status: 'Completed', message: 'finished while stopping' });
  });

  it('ends a job Failed, once, when none of its deliveries reached an outcome, and runs its failure hook and clean-up', async () => {
    // Each delivery ends without an outcome, as when its worker is killed or hands it back every time.
    let runs = 0;
    const failures: string[] = [];
    let cleanups = 0;
    running.push(
      await worker(
        'unfinished',
        async () => {
          runs++;
          throw new JobHandedBack('handed back');
        },
        { maxDeliver: 2, failed: async (_job, message) => void failures.push(message), cleanup: async () => void cleanups++ },
      ),
    );
    await request('unfinished', 'q-unfinished');
    const view = await ended('q-unfinished');
    expect(view).toMatchObject({ status: 'Failed', message: 'Failed: each of its 2 attempts stopped before it ended (its worker stopped or restarted).' });
    expect(runs).toBe(2);
    expect(failures).toEqual([view.message]);
    await waitUntil(() => cleanups === 1, { what: 'the clean-up of the job given up' });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(terminals('q-unfinished')).toHaveLength(1);
    expect(runs).toBe(2);
  });
});
