import { randomBytes } from 'node:crypto';
import { createLogger } from '@platform/logging';
import { closeNats, connectNats, DEAD_LETTER_STREAM, ensureStream, naming, publish, runConsumer, type RunningConsumer } from '@platform/nats';
import type { JetStreamClient, JetStreamManager, NatsConnection } from 'nats';
import { decodeJobProgress, encodeJobProgress, JobStatus } from './job-progress.codec';
import { createJobProgressPublisher } from './job-progress.publisher';
import { JOB_PROGRESS_STREAM, jobProgressConsumerSpec, jobProgressSubject } from './job-progress.stream';
import { applyJobProgress, type QueueView } from './queue-view.reducer';

const logger = createLogger({ service: 'platform-jobs-test', level: 'silent' });

describe('job progress through JetStream', () => {
  const prefix = `T${randomBytes(4).toString('hex')}_`;
  const names = naming(prefix);
  let nc: NatsConnection;
  let js: JetStreamClient;
  let jsm: JetStreamManager;
  let queueView: RunningConsumer | undefined;
  const views = new Map<string, QueueView>();

  beforeAll(async () => {
    nc = await connectNats({ url: process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222', name: 'platform-jobs-test', logger });
    js = nc.jetstream();
    jsm = await nc.jetstreamManager();
    await ensureStream(jsm, names.streamSpec(JOB_PROGRESS_STREAM));
    await ensureStream(jsm, names.streamSpec(DEAD_LETTER_STREAM));
    // What storage-library does: fold every kind's events into one view per queue id.
    queueView = await runConsumer({
      js,
      jsm,
      spec: names.consumerSpec(jobProgressConsumerSpec('queue-view')),
      logger,
      fetchExpiresMs: 1_000,
      handler: async ({ data }) => {
        const event = decodeJobProgress(data);
        const next = applyJobProgress(views.get(event.queueId), event);
        views.set(event.queueId, next);
      },
    });
  });

  afterAll(async () => {
    await queueView?.stop();
    if (jsm) {
      for await (const name of jsm.streams.names()) if (name.startsWith(prefix)) await jsm.streams.delete(name);
    }
    if (nc) await closeNats(nc);
  });

  async function waitUntil(condition: () => Promise<boolean> | boolean, what = 'condition') {
    const deadline = Date.now() + 5_000;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async function waitForView(queueId: string, done: (view: QueueView) => boolean): Promise<QueueView> {
    await waitUntil(() => {
      const view = views.get(queueId);
      return view !== undefined && done(view);
    }, `queue ${queueId}`);
    return views.get(queueId) as QueueView;
  }

  it("folds a job's reports into its queue view, from queued to completed", async () => {
    const uploads = createJobProgressPublisher({ js, prefix, kind: 'asset-upload' });

    const first = await uploads.report('upload-1', 7, { status: JobStatus.JOB_STATUS_QUEUED, totalItems: 0, totalProcessed: 0 });
    await uploads.report('upload-1', 7, { status: JobStatus.JOB_STATUS_PROCESSING, totalItems: 4, totalProcessed: 2, message: 'extracting' });
    const last = await uploads.report('upload-1', 7, { status: JobStatus.JOB_STATUS_COMPLETED, totalItems: 4, totalProcessed: 4, message: 'done' });

    const view = await waitForView('upload-1', (v) => v.status === 'Completed');
    expect(view).toEqual({
      queueId: 'upload-1',
      accountId: 7,
      kind: 'asset-upload',
      status: 'Completed',
      totalItems: 4,
      totalProcessed: 4,
      message: 'done',
      sequence: last.sequence,
      updatedAt: last.occurredAt,
    });
    expect(last.sequence).toBeGreaterThan(first.sequence);
    const stored = await jsm.streams.getMessage(names.stream(JOB_PROGRESS_STREAM.name), {
      last_by_subj: jobProgressSubject(prefix, 'asset-upload'),
    });
    expect(stored.header.get('Nats-Msg-Id')).toBe(`upload-1:${last.sequence}`);
  });

  it('drops a retried publish in the stream and a stale event in the reducer', async () => {
    const copies = createJobProgressPublisher({ js, prefix, kind: 'cloud-copy' });
    const queued = await copies.report('copy-1', 9, { status: JobStatus.JOB_STATUS_QUEUED, totalItems: 0, totalProcessed: 0 });
    const progressed = await copies.report('copy-1', 9, { status: JobStatus.JOB_STATUS_PROCESSING, totalItems: 10, totalProcessed: 6, message: 'six' });
    await waitForView('copy-1', (v) => v.sequence === progressed.sequence);

    const subject = jobProgressSubject(prefix, 'cloud-copy');
    const retried = await publish(js, subject, encodeJobProgress(progressed), { msgId: `copy-1:${progressed.sequence}` });
    expect(retried.duplicate).toBe(true);

    // Reaches the consumer (new msgId) but is older than what the view already shows.
    const stale = { ...queued, status: JobStatus.JOB_STATUS_PROCESSING, totalProcessed: 1, message: 'stale' };
    const staleAck = await publish(js, subject, encodeJobProgress(stale), { msgId: `copy-1:${queued.sequence}:replay` });
    const spec = names.consumerSpec(jobProgressConsumerSpec('queue-view'));
    await waitUntil(async () => (await jsm.consumers.info(spec.stream, spec.durable)).ack_floor.stream_seq >= staleAck.seq);

    expect(views.get('copy-1')).toMatchObject({ status: 'Processing', totalProcessed: 6, message: 'six', sequence: progressed.sequence });
  });

  it('lets a worker that picked up a job after a crash out-sequence the one that died', async () => {
    const crashed = createJobProgressPublisher({ js, prefix, kind: 'feed-ingest' });
    const before = await crashed.report('feed-1', 3, { status: JobStatus.JOB_STATUS_PROCESSING, totalItems: 100, totalProcessed: 40 });
    await new Promise((resolve) => setTimeout(resolve, 5));

    const successor = createJobProgressPublisher({ js, prefix, kind: 'feed-ingest' });
    const after = await successor.report('feed-1', 3, {
      status: JobStatus.JOB_STATUS_FAILED,
      totalItems: 100,
      totalProcessed: 41,
      message: 'feed unreachable',
    });

    expect(after.sequence).toBeGreaterThan(before.sequence);
    const view = await waitForView('feed-1', (v) => v.status === 'Failed');
    expect(view).toMatchObject({ totalProcessed: 41, message: 'feed unreachable', sequence: after.sequence });
  });
});
