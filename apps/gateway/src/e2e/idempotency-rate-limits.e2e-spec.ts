import { request as httpRequest } from 'node:http';
import { waitUntil } from '@platform/testing';
import { admin, E2eSystem, expectProblem, Http, httpClient, startE2eSystem } from './e2e-system';

jest.setTimeout(180_000);

const PER_KEY = 12;
const PER_ACCOUNT = 20;

/**
 * Idempotency keys and rate limits over HTTP, on two gateway replicas (A and B) that share the
 * gateway schema: a key used on one is honoured on the other, and one budget is spent through both.
 */
describe('idempotent writes and rate limits across gateway replicas', () => {
  let system: E2eSystem;
  let gatewayA: Http;
  let gatewayB: Http;
  let orgId: string;

  const newAccount = (name: string) => admin(gatewayA).createAccount(orgId, name);
  const newKey = async () => (await admin(gatewayA).createKey({ orgId, permissions: ['*'] })).apiKey;
  const createCampaign = (gateway: Http, apiKey: string, accountId: number, campaignName: string, idempotencyKey?: string) =>
    gateway<{ retailCampaignId: number }>('POST', `/v2/accounts/${accountId}/retail-campaigns`, {
      key: apiKey,
      json: { campaignName },
      headers: idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey },
    });
  const campaignCount = async (apiKey: string, accountId: number) =>
    (await gatewayA<{ total: number }>('GET', `/v2/accounts/${accountId}/retail-campaigns`, { key: apiKey })).body.total;

  beforeAll(async () => {
    // The counter is given time to answer on a loaded machine: these specs count the budget; going through
    // uncounted when the counter is slow (fail open) is the rate-limit spec's to show.
    system = await startE2eSystem('idem', {
      env: { RATE_LIMIT_PER_MINUTE: String(PER_KEY), RATE_LIMIT_ACCOUNT_PER_MINUTE: String(PER_ACCOUNT), RATE_LIMIT_COUNTER_WAIT_MS: '5000' },
    });
    gatewayA = httpClient(system.baseUrl);
    gatewayB = httpClient(await system.startGatewayReplica());
    orgId = await admin(gatewayA).createOrg({ name: 'Retry Co', isRetailer: true });
  });

  afterAll(async () => {
    expect(await system?.stop()).toEqual([0, 0, 0]);
  });

  describe('Idempotency-Key', () => {
    it('replays the first answer to a retry on either replica, creating one campaign', async () => {
      const [apiKey, account] = [await newKey(), await newAccount('Replays')];
      const first = await createCampaign(gatewayA, apiKey, account, 'Once', 'create-once-1');
      expect(first.status).toBe(201);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      for (const gateway of [gatewayA, gatewayB]) {
        const retry = await createCampaign(gateway, apiKey, account, 'Once', 'create-once-1');
        expect({ status: retry.status, body: retry.body, replayed: retry.headers.get('idempotent-replayed') }).toEqual({
          status: 201,
          body: first.body,
          replayed: 'true',
        });
        expect(retry.headers.get('content-type')).toBe(first.headers.get('content-type'));
      }
      expect(await campaignCount(apiKey, account)).toBe(1);
      // Without a key, the same body is a new request.
      expect((await createCampaign(gatewayB, apiKey, account, 'Once')).status).toBe(201);
      expect(await campaignCount(apiKey, account)).toBe(2);
    });

    it('refuses the same key with another body with 422, creating nothing', async () => {
      const [apiKey, account] = [await newKey(), await newAccount('Mismatch')];
      expect((await createCampaign(gatewayA, apiKey, account, 'First', 'mismatch-1')).status).toBe(201);
      expectProblem(await createCampaign(gatewayB, apiKey, account, 'Second', 'mismatch-1'), 422, 'IDEMPOTENCY_KEY_REUSED');
      expect(await campaignCount(apiKey, account)).toBe(1);
    });

    it('keeps a key apart per account: the same key in another account is another request', async () => {
      const apiKey = await newKey();
      const [one, two] = [await newAccount('Apart 1'), await newAccount('Apart 2')];
      expect((await createCampaign(gatewayA, apiKey, one, 'Apart', 'shared-key')).status).toBe(201);
      const other = await createCampaign(gatewayA, apiKey, two, 'Apart', 'shared-key');
      expect({ status: other.status, replayed: other.headers.get('idempotent-replayed') }).toEqual({ status: 201, replayed: null });
      expect(await campaignCount(apiKey, two)).toBe(1);
    });

    it('replays a client error as it was answered', async () => {
      const [apiKey, account] = [await newKey(), await newAccount('Errors')];
      const patch = () =>
        gatewayB('PATCH', `/v2/accounts/${account}/retail-campaigns/999999`, {
          key: apiKey,
          json: { campaignName: 'x' },
          headers: { 'idempotency-key': 'missing-1' },
        });
      const first = await patch();
      expectProblem(first, 404, 'RETAIL_CAMPAIGN_NOT_FOUND');
      const retry = await patch();
      expectProblem(retry, 404, 'RETAIL_CAMPAIGN_NOT_FOUND');
      expect({ replayed: retry.headers.get('idempotent-replayed'), body: retry.body }).toEqual({ replayed: 'true', body: first.body });
    });

    it.each([
      ['too long', 'k'.repeat(256), 'TOO_LONG'],
      ['with a space', 'two words', 'INVALID_FORMAT'],
    ])('refuses a key %s with 400 naming the header, changing nothing', async (_case, idempotencyKey, rule) => {
      const [apiKey, account] = [await newKey(), await newAccount(`Bad key ${rule}`)];
      const result = await createCampaign(gatewayA, apiKey, account, 'Nope', idempotencyKey);
      expectProblem(result, 400, 'VALIDATION_FAILED');
      expect(result.body.errors).toEqual([expect.objectContaining({ header: 'idempotency-key', code: rule })]);
      expect(await campaignCount(apiKey, account)).toBe(0);
    });

    it('answers 409 to a retry on another replica while the first request still runs, then replays its answer', async () => {
      const [apiKey, account] = [await newKey(), await newAccount('Concurrent')];
      const upload = slowUpload(system.baseUrl, `/v2/accounts/${account}/asset-library`, apiKey, 'upload-1');
      // The first request holds the key once its claim is in the shared table (its body is still arriving).
      await waitUntil(
        async () => (await system.rows('gateway_identity', 'SELECT 1 FROM idempotent_requests WHERE idempotency_key = ?', ['upload-1'])).length === 1,
        { what: "the first upload's claim of its key", timeoutMs: 10_000, everyMs: 50 },
      );
      const retryWhileRunning = await uploadOnce(gatewayB, account, apiKey, 'upload-1');
      expectProblem(retryWhileRunning, 409, 'IDEMPOTENCY_REQUEST_IN_PROGRESS');
      expect(retryWhileRunning.headers.get('retry-after')).toBe('1');

      const first = await upload.finish();
      expect(first.status).toBe(200);
      const retryAfter = await uploadOnce(gatewayB, account, apiKey, 'upload-1');
      expect({ status: retryAfter.status, body: retryAfter.body, replayed: retryAfter.headers.get('idempotent-replayed') }).toEqual({
        status: 200,
        body: first.body,
        replayed: 'true',
      });
    });
  });

  describe('rate limits', () => {
    it('spends one budget per API key through both replicas, then answers 429 with Retry-After and RateLimit headers', async () => {
      await awayFromMinuteEnd();
      const [apiKey, account] = [await newKey(), await newAccount('Key budget')];
      const remaining: string[] = [];
      for (let i = 0; i < PER_KEY; i++) {
        const result = await (i % 2 === 0 ? gatewayA : gatewayB)('GET', `/v2/accounts/${account}/retail-campaigns`, { key: apiKey });
        expect(result.status).toBe(200);
        remaining.push(result.headers.get('ratelimit-remaining') as string);
      }
      expect(remaining).toEqual(Array.from({ length: PER_KEY }, (_, i) => String(PER_KEY - 1 - i)));
      for (const gateway of [gatewayA, gatewayB]) {
        const refused = await gateway('GET', `/v2/accounts/${account}/retail-campaigns`, { key: apiKey });
        expectProblem(refused, 429, 'RATE_LIMITED');
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
        expect({ limit: refused.headers.get('ratelimit-limit'), remaining: refused.headers.get('ratelimit-remaining') }).toEqual({
          limit: String(PER_KEY),
          remaining: '0',
        });
      }
    });

    it('spends one budget per account over every key and replica', async () => {
      await awayFromMinuteEnd();
      const account = await newAccount('Account budget');
      const keys = [await newKey(), await newKey()];
      for (let i = 0; i < PER_ACCOUNT; i++) {
        const result = await (i % 2 === 0 ? gatewayA : gatewayB)('GET', `/v2/accounts/${account}/retail-campaigns`, { key: keys[i % 2] });
        expect(result.status).toBe(200);
      }
      const third = await newKey();
      const refused = await gatewayA('GET', `/v2/accounts/${account}/retail-campaigns`, { key: third });
      expectProblem(refused, 429, 'RATE_LIMITED');
      expect(refused.body).toMatchObject({ detail: expect.stringContaining(`Account ${account}`) });
      // Another account of the same keys has its own budget.
      expect((await gatewayB('GET', `/v2/accounts/${await newAccount('Fresh')}/retail-campaigns`, { key: third })).status).toBe(200);
    });
  });
});

/** Budgets are per minute: a spec that spends one must not straddle the minute's end. */
async function awayFromMinuteEnd(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 40_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 200));
}

const BOUNDARY = 'e2e-idempotency-boundary';
const partHead = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="slow.png"\r\nContent-Type: image/png\r\n\r\n`;
const partTail = `\r\n--${BOUNDARY}--\r\n`;

function uploadOnce(gateway: Http, account: number, apiKey: string, idempotencyKey: string) {
  return gateway('POST', `/v2/accounts/${account}/asset-library`, {
    key: apiKey,
    headers: { 'idempotency-key': idempotencyKey },
    raw: `${partHead}png bytes${partTail}`,
    contentType: `multipart/form-data; boundary=${BOUNDARY}`,
  });
}

/** An upload whose body stops half-way until `finish`: the request is running, its key claimed, for as long as the test wants. */
function slowUpload(baseUrl: string, path: string, apiKey: string, idempotencyKey: string) {
  let finishBody: () => void = () => undefined;
  const answer = new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    const req = httpRequest(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'idempotency-key': idempotencyKey, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString() || 'null') }));
    });
    req.on('error', reject);
    req.write(`${partHead}png `);
    finishBody = () => req.end(`bytes${partTail}`);
  });
  return {
    finish: () => {
      finishBody();
      return answer;
    },
  };
}
