import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { admin, apiClient, E2eSystem, exchange, expectProblem, Http, httpClient, startE2eSystem } from './e2e-system';
import { zipOf } from './zip-fixture';

jest.setTimeout(180_000);

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** What a receiver does with a delivery (docs/architecture.md): HMAC over "<timestamp>.<raw body>", compared in constant time, a fresh timestamp. */
function signatureIsValid(secret: string, received: Received): boolean {
  const timestamp = String(received.headers['webhook-timestamp']);
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const expected = Buffer.from(`v1=${createHmac('sha256', secret).update(`${timestamp}.${received.body}`).digest('hex')}`);
  const given = Buffer.from(String(received.headers['webhook-signature']));
  return expected.length === given.length && timingSafeEqual(expected, given);
}

describe('job-notification webhooks over HTTP (gateway -> storage-library -> storage-worker -> a receiver)', () => {
  let system: E2eSystem;
  let http: Http;
  let receiver: Server;
  let receiverUrl: string;
  const received: Received[] = [];
  /** Statuses the receiver answers, in turn; the last one repeats. */
  const script: number[] = [200];
  let account: number;
  let otherAccount: number;
  let key: string;
  let otherKey: string;
  let viewKey: string;

  const api = (apiKey = key) => apiClient(http, { apiKey });
  const webhooksPath = (accountId = account) => `/v2/accounts/${accountId}/webhooks`;

  async function upload(file: { name: string; data: Buffer }): Promise<string> {
    const form = new FormData();
    form.append('file', new Blob([file.data]), file.name);
    const response = await fetch(`${system.baseUrl}/v2/accounts/${account}/asset-library`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { queueId: string }).queueId;
  }

  async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  }

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
        res.statusCode = script.length > 1 ? (script.shift() as number) : script[0];
        res.end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as AddressInfo;
    receiverUrl = `http://127.0.0.1:${port}/hooks/retail-media`;
    system = await startE2eSystem('wh', {
      services: ['storage-library'],
      workers: ['storage-worker'],
      env: {
        // The receiver is on loopback, which the outbound rules refuse unless named here.
        OUTBOUND_ALLOWLIST: `127.0.0.1:${port}`,
        WEBHOOK_POLL_INTERVAL_MS: '200',
        WEBHOOK_RETRY_INITIAL_MS: '400',
        WEBHOOK_RETRY_MAX_MS: '2000',
        WEBHOOK_MAX_ATTEMPTS: '3',
      },
    });
    http = httpClient(system.baseUrl);
    const a = admin(http);
    const orgId = await a.createOrg({ name: 'Webhook Retail', isRetailer: true });
    account = await a.createAccount(orgId, 'Webhooks A');
    otherAccount = await a.createAccount(orgId, 'Webhooks B');
    key = (await a.createKey({ orgId, accountIds: [account], permissions: ['*'] })).apiKey;
    otherKey = (await a.createKey({ orgId, accountIds: [otherAccount], permissions: ['*'] })).apiKey;
    viewKey = (await a.createKey({ orgId, accountIds: [account], permissions: ['CloudStorage_View', 'AssetLibrary_Edit'] })).apiKey;
  });

  afterAll(async () => {
    await system?.stop();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it('tells a registered webhook each status of an upload once, signed, and lists the deliveries', async () => {
    const created = await exchange(
      api().POST('/v2/accounts/{accountId}/webhooks', {
        params: { path: { accountId: account } },
        body: { url: receiverUrl, events: ['asset-upload'], description: 'library sync' },
      }),
    );
    expect(created.status).toBe(201);
    const { webhook, secret } = created.body;
    expect(webhook).toMatchObject({ url: receiverUrl, events: ['asset-upload'], description: 'library sync', enabled: true });
    expect(secret).toMatch(/^whsec_/);

    const queueId = await upload({
      name: 'pack.zip',
      data: await zipOf([
        { name: 'a.png', data: Buffer.from('a') },
        { name: 'b.png', data: Buffer.from('bb') },
      ]),
    });
    const events = await waitFor('the Completed delivery', async () => {
      const mine = received.filter((r) => (JSON.parse(r.body) as { data: { queueId: string } }).data.queueId === queueId);
      return mine.some((r) => r.headers['webhook-id'] === `${queueId}:Completed`) ? mine : undefined;
    });
    // Let a duplicate, if the service wrote one, arrive before counting.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const mine = received.filter((r) => (JSON.parse(r.body) as { data: { queueId: string } }).data.queueId === queueId);
    expect(mine).toHaveLength(events.length);
    const bodies = mine.map((r) => JSON.parse(r.body) as { id: string; type: string; occurredAt: string; data: Record<string, unknown> });
    expect(bodies.map((b) => b.data.status).sort()).toEqual(['Completed', 'Processing', 'Queued']);
    for (const r of mine) expect(signatureIsValid(secret, r)).toBe(true);
    expect(signatureIsValid(`${secret}-wrong`, mine[0])).toBe(false);
    const completed = bodies.find((b) => b.data.status === 'Completed');
    expect(completed).toEqual({
      id: `${queueId}:Completed`,
      type: 'job.status_changed',
      occurredAt: expect.any(String),
      data: { queueId, kind: 'asset-upload', status: 'Completed', totalItems: 2, totalProcessed: 2, message: expect.any(String) },
    });

    const deliveries = await waitFor('every delivery recorded as succeeded', async () => {
      const page = await exchange(
        api().GET('/v2/accounts/{accountId}/webhooks/{webhookId}/deliveries', { params: { path: { accountId: account, webhookId: webhook.id }, query: {} } }),
      );
      expect(page.status).toBe(200);
      return page.body.deliveries.every((d) => d.status === 'succeeded') ? page.body : undefined;
    });
    expect(deliveries.total).toBe(3);
    // Newest first: the statuses in the reverse of the order the job reached them.
    expect(deliveries.deliveries.map((d) => [d.jobStatus, d.eventId, d.queueId, d.kind, d.attempts, d.lastHttpStatus, d.nextAttemptAt])).toEqual([
      ['Completed', `${queueId}:Completed`, queueId, 'asset-upload', 1, 200, null],
      ['Processing', `${queueId}:Processing`, queueId, 'asset-upload', 1, 200, null],
      ['Queued', `${queueId}:Queued`, queueId, 'asset-upload', 1, 200, null],
    ]);

    // Reads never answer the secret.
    const one = await http('GET', `${webhooksPath()}/${webhook.id}`, { key });
    const list = await http('GET', webhooksPath(), { key });
    expect([one.status, list.status]).toEqual([200, 200]);
    expect(one.text + list.text + JSON.stringify(deliveries)).not.toContain(secret);
    expect(list.body).toMatchObject({ total: 1, webhooks: [expect.objectContaining({ id: webhook.id })] });

    // Replay: a new delivery naming the original, the same event sent again.
    const original = deliveries.deliveries[0];
    const before = received.length;
    const replay = await exchange(
      api().POST('/v2/accounts/{accountId}/webhooks/{webhookId}/deliveries/{deliveryId}/replay', {
        params: { path: { accountId: account, webhookId: webhook.id, deliveryId: original.id } },
      }),
    );
    expect(replay.status).toBe(201);
    expect(replay.body).toMatchObject({ replayOf: original.id, eventId: original.eventId, status: 'pending' });
    const again = await waitFor('the replayed event', async () => received.slice(before).find((r) => r.headers['webhook-id'] === original.eventId));
    expect(signatureIsValid(secret, again)).toBe(true);
  });

  it('retries a receiver that fails, then records the success', async () => {
    // Only this test's webhooks may take the receiver's scripted answers.
    const existing = await http<{ webhooks: { id: number }[] }>('GET', webhooksPath(), { key });
    for (const { id } of existing.body.webhooks) expect((await http('PATCH', `${webhooksPath()}/${id}`, { key, json: { enabled: false } })).status).toBe(200);
    script.splice(0, script.length, 503, 200);
    const copies = await http<{ webhook: { id: number } }>('POST', webhooksPath(), { key, json: { url: `${receiverUrl}?copies=1`, events: ['cloud-copy'] } });
    const all = await http<{ webhook: { id: number } }>('POST', webhooksPath(), { key, json: { url: `${receiverUrl}?all=1` } });
    expect([copies.status, all.status]).toEqual([201, 201]);
    const queueId = await upload({ name: 'one.png', data: Buffer.from('png') });
    type Page = { total: number; deliveries: { eventId: string; status: string; attempts: number; lastHttpStatus: number | null }[] };
    const page = await waitFor('the three deliveries succeeded', async () => {
      const result = await http<Page>('GET', `${webhooksPath()}/${all.body.webhook.id}/deliveries`, { key });
      const done = result.body.deliveries.filter((d) => d.status === 'succeeded');
      return done.length === 3 && result.body.total === 3 ? result.body : undefined;
    });
    expect(page.deliveries.map((d) => d.eventId)).toEqual([`${queueId}:Completed`, `${queueId}:Processing`, `${queueId}:Queued`]);
    // The first POST was answered 503 and retried after the backoff: one delivery took two attempts, the others one.
    expect(page.deliveries.map((d) => d.attempts).sort()).toEqual([1, 1, 2]);
    expect(page.deliveries.every((d) => d.lastHttpStatus === 200)).toBe(true);
    // The cloud-copy webhook heard nothing of an upload, and the disabled ones nothing at all.
    expect((await http<{ total: number }>('GET', `${webhooksPath()}/${copies.body.webhook.id}/deliveries`, { key })).body.total).toBe(0);
    const retried = received.filter((r) => r.headers['webhook-id'] === `${queueId}:Queued`);
    expect(retried.length).toBeGreaterThanOrEqual(1);
    expect(received.filter((r) => (JSON.parse(r.body) as { data: { queueId: string } }).data.queueId === queueId)).toHaveLength(4);
  });

  it('refuses bad input with a 400 naming the field, and keeps tenants and permissions apart', async () => {
    const bad = async (json: unknown, pointer: string) => {
      const result = await http('POST', webhooksPath(), { key, json });
      expectProblem(result, 400, 'VALIDATION_FAILED');
      expect(result.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ pointer })]));
    };
    await bad({ url: 'ftp://example.com/hook' }, '/url');
    await bad({ url: 'example.com/hook' }, '/url');
    await bad({ url: `https://example.com/${'a'.repeat(2100)}` }, '/url');
    await bad({ url: receiverUrl, events: ['asset-upload', 'reticulate-splines'] }, '/events/1');
    await bad({ url: receiverUrl, description: 'x'.repeat(501) }, '/description');
    await bad({ url: receiverUrl, secret: 'mine' }, '/secret');

    const created = await http<{ webhook: { id: number } }>('POST', webhooksPath(), { key, json: { url: receiverUrl } });
    const id = created.body.webhook.id;
    expectProblem(await http('GET', `${webhooksPath(otherAccount)}/${id}`, { key: otherKey }), 404, 'WEBHOOK_NOT_FOUND');
    expectProblem(await http('GET', `${webhooksPath()}/${id}`, { key: otherKey }), 404, 'ACCOUNT_NOT_FOUND');
    expectProblem(await http('POST', `${webhooksPath()}/${id}/deliveries/999999/replay`, { key }), 404, 'WEBHOOK_DELIVERY_NOT_FOUND');
    const forbidden = await http('POST', webhooksPath(), { key: viewKey, json: { url: receiverUrl } });
    expectProblem(forbidden, 403, 'PERMISSION_DENIED');
    expect(forbidden.body.requiredPermission).toBe('CloudStorage_Edit');
    expect((await http('GET', `${webhooksPath()}/${id}`, { key: viewKey })).status).toBe(200);

    const disabled = await http<{ enabled: boolean }>('PATCH', `${webhooksPath()}/${id}`, { key, json: { enabled: false } });
    expect([disabled.status, disabled.body.enabled]).toEqual([200, false]);
    expect((await http('DELETE', `${webhooksPath()}/${id}`, { key })).status).toBe(204);
    expectProblem(await http('GET', `${webhooksPath()}/${id}`, { key }), 404, 'WEBHOOK_NOT_FOUND');
  });
});
