import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JobStatus, type JobProgress } from '@platform/jobs';
import { createLogger } from '@platform/logging';
import { naming } from '@platform/nats';
import { createEventOutbox } from '@platform/service';
import { createOutboundFetch } from '@platform/outbound-fetch';
import { createSecretBox, developmentKey } from '@platform/secrets';
import { QueueRepository } from '../queues/queue.repository';
import { QueueService } from '../queues/queue.service';
import { openStorageLibraryTestBed, rejectionOf, type StorageLibraryTestBed } from '../storage-library.test-support';
import { deliveryBody, WebhookDispatcher, type WebhookDeliveryPolicy } from './webhook-delivery';
import { verifyWebhookSignature, webhookSignature } from './webhook-signature';

jest.setTimeout(60_000);

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A receiver on loopback answering each request with the next status of `script` (the last one repeats). */
async function startReceiver(): Promise<{ url: string; host: string; received: Received[]; script: number[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const script: number[] = [200];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = script.length > 1 ? (script.shift() as number) : script[0];
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks?token=abc`,
    host: `127.0.0.1:${port}`,
    received,
    script,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('job-notification webhooks (real MariaDB)', () => {
  let bed: StorageLibraryTestBed;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  // The test bed's box: the service seals with it, the dispatcher opens with it.
  const box = createSecretBox(developmentKey('storage-library-test'));
  const logger = createLogger({ service: 'webhook-test', level: 'silent' });

  const dispatcher = (policy: Partial<WebhookDeliveryPolicy> = {}, allowlist = [receiver.host]) =>
    new WebhookDispatcher(
      bed.db.knex,
      bed.webhookRepository,
      box,
      createOutboundFetch({ allowlist }),
      { timeoutMs: 2_000, retryInitialMs: 50, retryMaxMs: 200, maxAttempts: 4, perRun: 50, ...policy },
      logger,
    );

  /** Runs the loop until no delivery of the webhook is open, as the periodic task would. */
  async function drain(loop: WebhookDispatcher, webhookId: number, accountId: number): Promise<void> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      await loop.runOnce();
      const page = await bed.webhooks.listDeliveries(accountId, webhookId, { limit: 100 });
      if (page.items.every((d) => d.status === 'succeeded' || d.status === 'failed')) return;
      if (Date.now() > deadline) throw new Error(`deliveries still open: ${JSON.stringify(page.items.map((d) => d.status))}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  const progress = (queueId: string, accountId: number, sequence: number, overrides: Partial<JobProgress> = {}): JobProgress => ({
    queueId,
    accountId,
    kind: 'asset-upload',
    status: JobStatus.JOB_STATUS_PROCESSING,
    totalItems: 3,
    totalProcessed: 1,
    message: 'working',
    sequence,
    occurredAt: new Date(1_800_000_000_000 + sequence).toISOString(),
    ...overrides,
  });

  beforeAll(async () => {
    bed = await openStorageLibraryTestBed('wh');
    receiver = await startReceiver();
  });

  afterAll(async () => {
    await receiver?.close();
    await bed?.close();
  });

  beforeEach(async () => {
    // The loop serves every account: what earlier tests left open would reach this test's receiver.
    await bed.db.knex('webhook_deliveries').whereIn('status', ['pending', 'retrying']).update({ status: 'failed' });
    receiver.received.length = 0;
    receiver.script.splice(0, receiver.script.length, 200);
  });

  describe('registering', () => {
    it('answers the secret at create only, and keeps it sealed at rest', async () => {
      const { webhook, secret } = await bed.webhooks.create(100, { url: receiver.url, events: [], description: ' Builds ' });
      expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
      expect(webhook).toMatchObject({ accountId: 100, url: receiver.url, events: ['*'], description: 'Builds', enabled: true });
      const [row] = await bed.db.knex('webhooks').where({ id: webhook.id });
      expect(Buffer.from(row.sealed_secret).toString('latin1')).not.toContain(secret.slice(6));
      expect(box.open(row.sealed_secret)).toBe(secret);
      // Reads answer records whose only secret is sealed (the gRPC mapping leaves even that out; the e2e spec reads them over HTTP).
      expect(JSON.stringify((await bed.webhooks.list(100, {})).items)).not.toContain(secret);
      expect(JSON.stringify(await bed.webhooks.get(100, webhook.id))).not.toContain(secret);
    });

    it.each([
      { label: 'an ftp URL', overrides: { url: 'ftp://example.com/x' }, pointer: '/url', code: 'INVALID_FORMAT' },
      { label: 'a relative URL', overrides: { url: 'not a url' }, pointer: '/url', code: 'INVALID_FORMAT' },
      { label: 'a blank URL', overrides: { url: ' ' }, pointer: '/url', code: 'REQUIRED' },
      { label: 'a URL past 2048 characters', overrides: { url: `https://example.com/${'a'.repeat(2048)}` }, pointer: '/url', code: 'TOO_LONG' },
      { label: 'an unknown job kind', overrides: { events: ['asset-upload', 'reticulate-splines'] }, pointer: '/events/1', code: 'NOT_ALLOWED' },
      { label: 'a description past 500 characters', overrides: { description: 'x'.repeat(501) }, pointer: '/description', code: 'TOO_LONG' },
    ])('refuses $label, naming $pointer with $code, and stores nothing', async ({ overrides, pointer, code }) => {
      const before = (await bed.webhooks.list(101, {})).total;
      const error = await rejectionOf(bed.webhooks.create(101, { url: 'https://example.com/hook', events: [], description: '', ...overrides }));
      expect(error).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', errors: [expect.objectContaining({ pointer, code })] });
      expect((await bed.webhooks.list(101, {})).total).toBe(before);
    });

    it("keeps another account's webhook out of reach and deletes with its deliveries", async () => {
      const { webhook } = await bed.webhooks.create(102, { url: receiver.url, events: ['cloud-copy'], description: '' });
      expect(await rejectionOf(bed.webhooks.get(103, webhook.id))).toMatchObject({ status: 404, code: 'WEBHOOK_NOT_FOUND' });
      expect(await rejectionOf(bed.webhooks.delete(103, webhook.id))).toMatchObject({ status: 404 });
      expect(await rejectionOf(bed.webhooks.listDeliveries(103, webhook.id, {}))).toMatchObject({ status: 404 });
      await bed.queues.enqueue('cloud-copy', 102, {});
      expect((await bed.webhooks.listDeliveries(102, webhook.id, {})).total).toBe(1);
      await bed.webhooks.delete(102, webhook.id);
      expect(await bed.db.knex('webhook_deliveries').where({ webhook_id: webhook.id })).toEqual([]);
      expect(await rejectionOf(bed.webhooks.get(102, webhook.id))).toMatchObject({ status: 404 });
    });
  });

  describe('events from the queue view', () => {
    it('writes one delivery per status reached, none for progress within a status or for repeats', async () => {
      const { webhook } = await bed.webhooks.create(110, { url: receiver.url, events: ['asset-upload'], description: '' });
      const queueId = await bed.queues.enqueue('asset-upload', 110, {});
      await bed.queues.apply(progress(queueId, 110, 1, { totalProcessed: 1 }));
      await bed.queues.apply(progress(queueId, 110, 2, { totalProcessed: 2 }));
      await bed.queues.apply(progress(queueId, 110, 2, { totalProcessed: 2 }));
      await bed.queues.apply(progress(queueId, 110, 3, { status: JobStatus.JOB_STATUS_COMPLETED, totalProcessed: 3, message: 'done' }));
      await bed.queues.apply(progress(queueId, 110, 3, { status: JobStatus.JOB_STATUS_COMPLETED, totalProcessed: 3, message: 'done' }));
      const page = await bed.webhooks.listDeliveries(110, webhook.id, {});
      expect(page.items.map((d) => [d.eventId, d.change.status, d.status, d.change.totalProcessed])).toEqual([
        [`${queueId}:Completed`, 'Completed', 'pending', 3],
        [`${queueId}:Processing`, 'Processing', 'pending', 1],
        [`${queueId}:Queued`, 'Queued', 'pending', 0],
      ]);
    });

    it('commits a delivery only with its status change: a change rolled back leaves none', async () => {
      const { webhook } = await bed.webhooks.create(114, { url: receiver.url, events: [], description: '' });
      const crashing = new QueueService(
        bed.db.knex,
        createEventOutbox(naming('WHCRASH')),
        new QueueRepository(bed.db),
        undefined,
        undefined,
        async (trx, view) => {
          await bed.webhooks.statusChanged(trx, view);
          throw new Error('the process died after writing the delivery');
        },
      );
      await expect(crashing.enqueue('cloud-copy', 114, {})).rejects.toThrow('the process died');
      expect(await bed.db.knex('queues').where({ account_id: 114 })).toEqual([]);
      expect((await bed.webhooks.listDeliveries(114, webhook.id, {})).total).toBe(0);
    });

    it('notifies only enabled webhooks of the account subscribed to the kind', async () => {
      const all = (await bed.webhooks.create(111, { url: receiver.url, events: ['*'], description: '' })).webhook;
      const copies = (await bed.webhooks.create(111, { url: receiver.url, events: ['cloud-copy'], description: '' })).webhook;
      const off = (await bed.webhooks.create(111, { url: receiver.url, events: [], description: '' })).webhook;
      const other = (await bed.webhooks.create(112, { url: receiver.url, events: [], description: '' })).webhook;
      await bed.webhooks.setEnabled(111, off.id, false);
      await bed.queues.enqueue('asset-upload', 111, {});
      const count = async (accountId: number, id: number) => (await bed.webhooks.listDeliveries(accountId, id, {})).total;
      expect([await count(111, all.id), await count(111, copies.id), await count(111, off.id), await count(112, other.id)]).toEqual([1, 0, 0, 0]);
    });

    it('records a job accepted by another service (the peer RecordQueuedJob path) once, however often it is told', async () => {
      const { webhook } = await bed.webhooks.create(113, { url: receiver.url, events: ['feed-ingest'], description: '' });
      const queued = progress('9d7f2a64-0000-4000-8000-000000000113', 113, 1, { kind: 'feed-ingest', status: JobStatus.JOB_STATUS_QUEUED, totalProcessed: 0 });
      await bed.queues.apply(queued);
      await bed.queues.apply(queued);
      expect((await bed.webhooks.listDeliveries(113, webhook.id, {})).items.map((d) => d.eventId)).toEqual([`${queued.queueId}:Queued`]);
    });
  });

  describe('delivering', () => {
    it('POSTs the event signed with the secret over the timestamp and body', async () => {
      const { webhook, secret } = await bed.webhooks.create(120, { url: receiver.url, events: [], description: '' });
      const queueId = await bed.queues.enqueue('asset-upload', 120, {});
      await drain(dispatcher(), webhook.id, 120);
      expect(receiver.received).toHaveLength(1);
      const [{ headers, body }] = receiver.received;
      expect(JSON.parse(body)).toEqual({
        id: `${queueId}:Queued`,
        type: 'job.status_changed',
        occurredAt: expect.any(String),
        data: { queueId, kind: 'asset-upload', status: 'Queued', totalItems: 0, totalProcessed: 0, message: 'Queued' },
      });
      expect(headers['content-type']).toBe('application/json');
      expect(headers['webhook-id']).toBe(`${queueId}:Queued`);
      const timestamp = Number(headers['webhook-timestamp']);
      expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(30);
      expect(headers['webhook-signature']).toBe(webhookSignature(secret, timestamp, body));
      expect(verifyWebhookSignature(secret, { timestamp: String(timestamp), signature: String(headers['webhook-signature']) }, body)).toBe(true);
      // What a receiver must refuse: another secret, a changed body, an old timestamp.
      const signature = String(headers['webhook-signature']);
      expect(verifyWebhookSignature(`${secret}x`, { timestamp: String(timestamp), signature }, body)).toBe(false);
      expect(verifyWebhookSignature(secret, { timestamp: String(timestamp), signature }, body.replace('Queued', 'Failed'))).toBe(false);
      expect(verifyWebhookSignature(secret, { timestamp: String(timestamp), signature }, body, { nowSeconds: timestamp + 301 })).toBe(false);
      const [delivery] = (await bed.webhooks.listDeliveries(120, webhook.id, {})).items;
      expect(delivery).toMatchObject({ status: 'succeeded', attempts: 1, lastHttpStatus: 200, lastError: null, nextAttemptAt: null });
      expect(deliveryBody(delivery)).toBe(body);
    });

    it('retries a failed attempt with a doubling delay, then succeeds, logging each attempt', async () => {
      receiver.script.splice(0, receiver.script.length, 500, 503, 200);
      const { webhook } = await bed.webhooks.create(121, { url: receiver.url, events: [], description: '' });
      await bed.queues.enqueue('cloud-copy', 121, {});
      const loop = dispatcher({ retryInitialMs: 300, retryMaxMs: 10_000 });
      await loop.runOnce();
      const [first] = (await bed.webhooks.listDeliveries(121, webhook.id, {})).items;
      expect(first).toMatchObject({ status: 'retrying', attempts: 1, lastHttpStatus: 500, lastError: 'The receiver answered HTTP 500.' });
      // Not due before its delay: a run now sends nothing.
      expect(await loop.runOnce()).toBe(0);
      await drain(loop, webhook.id, 121);
      const [done] = (await bed.webhooks.listDeliveries(121, webhook.id, {})).items;
      expect(done).toMatchObject({ status: 'succeeded', attempts: 3, lastHttpStatus: 200, lastError: null, nextAttemptAt: null });
      expect(await bed.webhookRepository.attempts(done.id)).toEqual([
        { attempt: 1, httpStatus: 500, error: 'The receiver answered HTTP 500.' },
        { attempt: 2, httpStatus: 503, error: 'The receiver answered HTTP 503.' },
        { attempt: 3, httpStatus: 200, error: null },
      ]);
      expect(receiver.received).toHaveLength(3);
      // The same event each time, so a receiver can tell a retry by its Webhook-Id.
      expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
      const times = (await bed.db.knex('webhook_delivery_attempts').where({ delivery_id: done.id }).orderBy('attempt')).map((r) =>
        new Date(r.attempted_at).getTime(),
      );
      expect(times[1] - times[0]).toBeGreaterThanOrEqual(300);
      expect(times[2] - times[1]).toBeGreaterThanOrEqual(600);
    });

    it('fails a delivery after the last attempt', async () => {
      receiver.script.splice(0, receiver.script.length, 500);
      const { webhook } = await bed.webhooks.create(122, { url: receiver.url, events: [], description: '' });
      await bed.queues.enqueue('cloud-copy', 122, {});
      await drain(dispatcher({ maxAttempts: 3 }), webhook.id, 122);
      const [delivery] = (await bed.webhooks.listDeliveries(122, webhook.id, {})).items;
      expect(delivery).toMatchObject({ status: 'failed', attempts: 3, lastHttpStatus: 500, nextAttemptAt: null });
      expect(receiver.received).toHaveLength(3);
    });

    it('refuses an address the outbound fetch guard does not admit, without reaching it', async () => {
      const { webhook } = await bed.webhooks.create(123, { url: receiver.url, events: [], description: '' });
      await bed.queues.enqueue('cloud-copy', 123, {});
      await drain(dispatcher({ maxAttempts: 1 }, []), webhook.id, 123);
      const [delivery] = (await bed.webhooks.listDeliveries(123, webhook.id, {})).items;
      expect(delivery).toMatchObject({
        status: 'failed',
        attempts: 1,
        lastHttpStatus: null,
        lastError: expect.stringMatching(/^OUTBOUND_ADDRESS_NOT_ALLOWED/),
      });
      expect(receiver.received).toHaveLength(0);
    });

    it('replays a delivery as a new one naming the original, and sends the same event again', async () => {
      const { webhook } = await bed.webhooks.create(124, { url: receiver.url, events: [], description: '' });
      await bed.queues.enqueue('cloud-copy', 124, {});
      const loop = dispatcher();
      await drain(loop, webhook.id, 124);
      const [original] = (await bed.webhooks.listDeliveries(124, webhook.id, {})).items;
      const replay = await bed.webhooks.replay(124, webhook.id, original.id);
      expect(replay).toMatchObject({ eventId: original.eventId, replayOf: original.id, status: 'pending', attempts: 0 });
      expect(replay.id).not.toBe(original.id);
      await drain(loop, webhook.id, 124);
      expect(receiver.received.map((r) => r.body)).toEqual([deliveryBody(original), deliveryBody(original)]);
      expect((await bed.webhooks.listDeliveries(124, webhook.id, {})).items.map((d) => [d.id, d.status])).toEqual([
        [replay.id, 'succeeded'],
        [original.id, 'succeeded'],
      ]);
      expect(await rejectionOf(bed.webhooks.replay(124, webhook.id, 999_999))).toMatchObject({ status: 404, code: 'WEBHOOK_DELIVERY_NOT_FOUND' });
      expect(await rejectionOf(bed.webhooks.replay(125, webhook.id, original.id))).toMatchObject({ status: 404, code: 'WEBHOOK_NOT_FOUND' });
    });

    it('ends the open deliveries of a webhook that is disabled, sending nothing', async () => {
      const { webhook } = await bed.webhooks.create(126, { url: receiver.url, events: [], description: '' });
      await bed.queues.enqueue('cloud-copy', 126, {});
      expect(await bed.webhooks.setEnabled(126, webhook.id, false)).toMatchObject({ enabled: false });
      await dispatcher().runOnce();
      const [delivery] = (await bed.webhooks.listDeliveries(126, webhook.id, {})).items;
      expect(delivery).toMatchObject({ status: 'failed', attempts: 0, lastError: expect.stringMatching(/disabled/) });
      expect(receiver.received).toHaveLength(0);
    });

    it('takes a delivery again once the lease of a replica that died mid-attempt runs out, and ignores that replica if it comes back', async () => {
      const { webhook } = await bed.webhooks.create(128, { url: receiver.url, events: [], description: '' });
      await bed.queues.enqueue('cloud-copy', 128, {});
      // A replica claims it with a short lease and never records an outcome.
      const abandoned = await bed.db.knex.transaction((trx) => bed.webhookRepository.claimDue(trx, 300), { isolationLevel: 'read committed' });
      expect(abandoned).toMatchObject({ webhookId: webhook.id, attempts: 1 });
      if (!abandoned) throw new Error('nothing was claimed');
      expect(await dispatcher().runOnce()).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 400));
      await drain(dispatcher(), webhook.id, 128);
      const [delivery] = (await bed.webhooks.listDeliveries(128, webhook.id, {})).items;
      expect(delivery).toMatchObject({ status: 'succeeded', attempts: 2 });
      expect(receiver.received).toHaveLength(1);
      const late = await bed.db.knex.transaction((trx) =>
        bed.webhookRepository.recordAttempt(
          trx,
          abandoned,
          { httpStatus: 500, error: 'late', code: 'HTTP_STATUS', durationMs: 1 },
          { status: 'retrying', retryInMs: 0 },
        ),
      );
      expect(late).toBe(false);
      expect(await bed.webhooks.listDeliveries(128, webhook.id, {})).toMatchObject({ items: [expect.objectContaining({ status: 'succeeded', attempts: 2 })] });
    });

    it('sends each delivery once when replicas run their loops at once', async () => {
      const { webhook } = await bed.webhooks.create(127, { url: receiver.url, events: [], description: '' });
      // Queued states told by the accepting service (no per-account job cap on this path).
      for (let i = 0; i < 12; i++) {
        await bed.queues.apply(progress(`9d7f2a64-0000-4000-8000-0000000127${String(i).padStart(2, '0')}`, 127, 1, { status: JobStatus.JOB_STATUS_QUEUED }));
      }
      await Promise.all([dispatcher().runOnce(), dispatcher().runOnce(), dispatcher().runOnce()]);
      await drain(dispatcher(), webhook.id, 127);
      expect(receiver.received).toHaveLength(12);
      expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(12);
      expect((await bed.webhooks.listDeliveries(127, webhook.id, { limit: 100 })).items.every((d) => d.attempts === 1 && d.status === 'succeeded')).toBe(true);
    });
  });
});
