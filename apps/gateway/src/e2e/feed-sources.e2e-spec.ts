import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedS3, type EmbeddedS3 } from '@platform/s3';
import { startFeedHttpServer, startFeedSftpServer, waitUntil, writeEndlessCsv, type FeedSftpServer } from '@platform/testing';
import { admin, E2eSystem, expectProblem, Http, httpClient, startE2eSystem } from './e2e-system';
import { httpCsvFeedBody } from './feed-fixture';

jest.setTimeout(180_000);

type Json = Record<string, unknown>;

/** The retailer's feed host on loopback: serves what `feeds` holds per path, basic auth on /private/. */
const feeds = new Map<string, string>();
/** Whether the reader of /endless.csv closed its connection. */
let endlessClosed = false;
const SECRET = 'feed-pa55word-do-not-echo';
const BUCKET_SECRET = 'bucket-s3cret-do-not-echo';
const SFTP_SERVER = {
  files: { 'exports/products.csv': `sku,name,category,price\nP000,Product 0,hats,0.99\nP001,Product 1,shoes,1.99\n` },
  user: 'feeder',
  password: SECRET,
};

const startFeedHost = () =>
  startFeedHttpServer((req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (path.startsWith('/private/') && req.headers.authorization !== `Basic ${Buffer.from(`feeder:${SECRET}`).toString('base64')}`) {
      res.writeHead(401).end();
      return;
    }
    if (path === '/endless.csv') {
      writeEndlessCsv(
        res,
        'sku,name,category,price\n',
        (n) => `E${n},Endless ${n},hats,1.00\n`,
        () => (endlessClosed = true),
      );
      return;
    }
    // A host that is down for a while: it answers 503 until the test puts the feed back.
    if (path === '/down.csv' && !feeds.has(path)) {
      res.writeHead(503).end('down for maintenance');
      return;
    }
    const body = feeds.get(path.replace('/private/', '/'));
    if (body === undefined) {
      res.writeHead(404).end('no such feed');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/csv' }).end(body);
  });

const csv = (rows: string[]) => `sku,name,category,price\n${rows.join('\n')}\n`;
const products = (n: number) => Array.from({ length: n }, (_, i) => `P${String(i).padStart(3, '0')},Product ${i},${i % 2 ? 'shoes' : 'hats'},${i}.99`);

describe('feed sources over HTTP (gateway -> asset-sources -> JetStream job -> queue view)', () => {
  let system: E2eSystem;
  let http: Http;
  let host: Awaited<ReturnType<typeof startFeedHost>>;
  /** A retailer's own S3-compatible bucket server (objstore feeds), apart from the platform's. */
  let bucketServer: EmbeddedS3;
  let bucketDirectory: string;
  /** A retailer's SFTP server (sftp feeds); a test swaps it for one with another host key on the same port. */
  let sftpServer: FeedSftpServer;
  let account: number;
  let otherAccount: number;
  let sameOrgAccount: number;
  let fullKey: string;
  let viewKey: string;
  let otherKey: string;

  const base = (a = account) => `/v2/accounts/${a}/asset-sources`;
  const call = <T = Json>(method: string, path: string, json?: unknown, key = fullKey) => http<T>(method, path, { key, json });
  const feedBody = (path: string, overrides: Json = {}) =>
    httpCsvFeedBody(`${host.origin}${path}`, ['sku', 'name', 'category', 'price'], { assetGroupColumn: 'category', reportingColumn: 'name', ...overrides });

  /** Polls the queue until it ends; it is readable from the moment create or update answered. */
  async function ended(queueId: string): Promise<{ status: string; message: string; totalItems: number; totalProcessed: number }> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const queue = await call<{ status: string; message: string; totalItems: number; totalProcessed: number }>('GET', `/v2/queues/${queueId}/status`);
      if (queue.status === 200 && (queue.body.status === 'Completed' || queue.body.status === 'Failed')) return queue.body;
      expect(queue.status).toBe(200);
      if (Date.now() > deadline) throw new Error(`queue ${queueId} did not end: ${queue.text}`);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  }
  /** Polls until a run is Processing (30 s at most). */
  const started = (runPath: string) =>
    waitUntil(async () => (await call<{ status: string }>('GET', runPath)).body.status === 'Processing', {
      timeoutMs: 30_000,
      everyMs: 100,
      what: `${runPath} to start`,
    });
  const data = async (id: number) => (await call<{ data: Json[]; rowCount: number }>('GET', `${base()}/${id}/data?limit=100`)).body;

  beforeAll(async () => {
    host = await startFeedHost();
    bucketDirectory = await mkdtemp(join(tmpdir(), 'e2e-feed-bucket-'));
    bucketServer = await startEmbeddedS3({ port: 0, directory: bucketDirectory, accessKey: 'retailer-ak', secretKey: BUCKET_SECRET });
    sftpServer = await startFeedSftpServer(SFTP_SERVER);
    system = await startE2eSystem('feeds', {
      // The storage worker places the files a fileId feed is read from.
      workers: ['storage-worker'],
      // The schedule sweep runs every half second inside asset-sources; no other spec here schedules a feed.
      env: {
        OUTBOUND_ALLOWLIST: `${host.hostPort},${new URL(bucketServer.endpoint).host},${sftpServer.hostPort}`,
        FEED_SCHEDULE_SWEEP_MS: '500',
      },
    });
    http = httpClient(system.baseUrl);
    const a = admin(http);
    const orgId = await a.createOrg({ name: 'Feed Retail', isRetailer: true });
    account = await a.createAccount(orgId, 'Feeds');
    sameOrgAccount = await a.createAccount(orgId, 'Feeds B');
    otherAccount = await a.createAccount(await a.createOrg({ name: 'Other', isRetailer: true }), 'Other');
    fullKey = (await a.createKey({ orgId, permissions: ['*'] })).apiKey;
    viewKey = (await a.createKey({ orgId, permissions: ['AssetSources_View', 'Queues_View'] })).apiKey;
    otherKey = (await a.createKey({ orgId: await a.createOrg({ name: 'Third', isRetailer: true }), permissions: ['*'] })).apiKey;
  });

  afterAll(async () => {
    await system?.stop();
    await host?.close();
    await bucketServer?.close();
    await sftpServer?.close();
    if (bucketDirectory) await rm(bucketDirectory, { recursive: true, force: true });
  });

  it('creates a feed source directly, ingests it as a job, and serves it like any asset source', async () => {
    feeds.set('/catalog.csv', csv([...products(30), 'P001,Duplicate,hats,1.00', ',No key,hats,2.00']));
    const created = await call<{ id: number; msg: string; queueId: string }>(
      'POST',
      `${base()}/feed/create`,
      feedBody('/private/catalog.csv', { urlConfig: { httpMethod: 'GET', username: 'feeder', password: SECRET } }),
    );
    expect(created.status).toBe(201);
    expect(created.text).not.toContain(SECRET);
    const queue = await ended(created.body.queueId);
    expect(queue).toMatchObject({ status: 'Completed', totalItems: 32, totalProcessed: 32 });
    expect(queue.message).toMatch(/^Completed: 32 rows serving/);

    const detail = await call<Json>('GET', `${base()}/${created.body.id}`);
    expect(detail.body).toMatchObject({
      assetSourceType: 'feed',
      rowCount: 32,
      assetKeyColumn: 'sku',
      feed: { urlType: 'http', credentialsSet: ['username', 'password'] },
    });
    expect(detail.text).not.toContain(SECRET);
    expect((await data(created.body.id)).data.slice(0, 2)).toEqual([
      { sku: 'P000', name: 'Product 0', category: 'hats', price: '0.99' },
      { sku: 'P001', name: 'Product 1', category: 'shoes', price: '1.99' },
    ]);
    const list = await call<{ assetSources: Json[] }>('GET', `${base()}?limit=100`);
    expect(list.body.assetSources).toContainEqual({ assetSourceId: created.body.id, assetSourceName: 'Retailer feed', assetSourceType: 'feed' });

    // The retailer's feed changed: refreshed now with the stored settings and credentials, nothing sent again.
    feeds.set('/catalog.csv', csv(products(31)));
    expectProblem(await call('POST', `${base()}/feed/${created.body.id}/refresh`, undefined, viewKey), 403, 'PERMISSION_DENIED');
    const refreshed = await call<{ msg: string; queueId: string }>('POST', `${base()}/feed/${created.body.id}/refresh`);
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.msg).toBe('The feed is queued for ingestion.');
    expect(await ended(refreshed.body.queueId)).toMatchObject({ status: 'Completed', totalProcessed: 31 });
    const runs = await call<{ runs: Json[] }>('GET', `${base()}/feed/${created.body.id}/runs?limit=1`);
    expect(runs.body.runs[0]).toMatchObject({ queueId: refreshed.body.queueId, trigger: 'refresh' });
    expectProblem(await call('POST', `${base(otherAccount)}/feed/${created.body.id}/refresh`), 404, 'ACCOUNT_NOT_FOUND');
    feeds.set('/catalog.csv', csv([...products(30), 'P001,Duplicate,hats,1.00', ',No key,hats,2.00']));
    expect(await ended((await call<{ queueId: string }>('POST', `${base()}/feed/${created.body.id}/refresh`)).body.queueId)).toMatchObject({
      status: 'Completed',
      totalProcessed: 32,
    });

    // The health report: counts on the run, every entry in the CSV.
    const run = await call<Json>('GET', `${base()}/feed/runs/${created.body.queueId}`);
    expect(run.body).toMatchObject({ status: 'Completed', rows: 32, rowsStored: 32, duplicateKeys: 1, emptyKeys: 1, rejectedRows: 0 });
    const report = await call('GET', `${base()}/feed/runs/${created.body.queueId}/report`);
    expect(report.status).toBe(200);
    expect(report.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(report.text.trim().split('\n')).toEqual([
      'line,kind,key,reason',
      expect.stringMatching(/^32,duplicate-key,P001,/),
      expect.stringMatching(/^33,empty-key,,/),
    ]);
    // A run is read through the account that owns it: another account of the org does not find it, another org's key not even the account.
    expectProblem(await call('GET', `${base(sameOrgAccount)}/feed/runs/${created.body.queueId}`), 404, 'FEED_RUN_NOT_FOUND');
    expectProblem(await call('GET', `${base()}/feed/runs/${created.body.queueId}/report`, undefined, otherKey), 404, 'ACCOUNT_NOT_FOUND');

    // Labels, and the retail feed list reading the feed source.
    expect((await call('POST', `${base()}/${created.body.id}/labels`, { label: 'retailer' })).status).toBe(201);
    expect((await call<{ labels: string[] }>('GET', `${base()}/${created.body.id}/labels`)).body.labels).toEqual(['retailer']);
    expect((await call('PUT', `/v2/accounts/${account}/retail-feed-settings`, { assetSourceId: created.body.id })).status).toBe(200);
    const categories = await call<{ values: string[] }>('GET', `/v2/accounts/${account}/retail-feed-settings/list?fields=category`);
    expect(categories.body.values).toEqual(['hats', 'shoes']);
    const skus = await call<{ values: string[] }>('GET', `/v2/accounts/${account}/retail-feed-settings/list?fields=product&query=P02`);
    expect(skus.body.values).toEqual(expect.arrayContaining(['P020', 'P029']));
  });

  it("reads a feed from a file of the account's asset library (fileId): process, create, ingest", async () => {
    // The retailer uploads its product file into the library.
    const form = new FormData();
    form.append('path', 'feeds');
    form.append('file', new Blob([csv(products(40))]), 'library-products.csv');
    const upload = await fetch(`${system.baseUrl}/v2/accounts/${account}/asset-library`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fullKey}` },
      body: form,
    });
    expect(upload.status).toBe(200);
    expect(await ended(((await upload.json()) as { queueId: string }).queueId)).toMatchObject({ status: 'Completed' });
    const fromLibrary = { url: '', fileId: 'feeds/library-products.csv' };
    // Process takes where and how the feed is read, not what the source makes of it.
    const READ_MEMBERS = ['url', 'fileId', 'urlType', 'urlConfig', 'contentType', 'csvSeparator', 'firstRowIsHeader', 'characterEncoding', 'cdp'];
    const processBody = (location: Json) => Object.fromEntries(Object.entries(feedBody('', location)).filter(([member]) => READ_MEMBERS.includes(member)));

    const processed = await call<{ config: Json; sample: Record<string, string[]> }>('POST', `${base()}/feed/process`, processBody(fromLibrary));
    expect(processed.status).toBe(200);
    expect(processed.body.config).toMatchObject({ fileId: 'feeds/library-products.csv', csvColumns: { sku: 0, name: 1, category: 2, price: 3 } });
    expect(processed.body.sample.sku.slice(0, 2)).toEqual(['P000', 'P001']);

    const created = await call<{ id: number; queueId: string }>('POST', `${base()}/feed/create`, feedBody('', fromLibrary));
    expect(created.status).toBe(201);
    expect(await ended(created.body.queueId)).toMatchObject({ status: 'Completed', totalItems: 40, totalProcessed: 40 });
    expect((await data(created.body.id)).rowCount).toBe(40);

    // A file the library does not hold: process says so; an ingestion fails on the queue with the reason, keeping nothing half-written.
    const missing = { url: '', fileId: 'feeds/not-uploaded.csv' };
    const refused = await call('POST', `${base()}/feed/process`, processBody(missing));
    expectProblem(refused, 424, 'FEED_NOT_FOUND');
    const failing = await call<{ id: number; queueId: string }>('POST', `${base()}/feed/create`, feedBody('', missing));
    expect(failing.status).toBe(201);
    expect(await ended(failing.body.queueId)).toMatchObject({ status: 'Failed', message: expect.stringContaining('feeds/not-uploaded.csv') });
    expect((await data(failing.body.id)).rowCount).toBe(0);
    // Another account's file is not this account's to read.
    const foreign = await call('POST', `${base(sameOrgAccount)}/feed/process`, processBody(fromLibrary));
    expectProblem(foreign, 424, 'FEED_NOT_FOUND');
  });

  it('refreshes a scheduled feed when it falls due, by the sweep inside asset-sources, and skips an unchanged one', async () => {
    feeds.set('/scheduled.csv', csv(products(5)));
    const schedule = { isScheduled: true, frequency: 'HOURLY', startTime: '00:15' };
    const created = await call<{ id: number; queueId: string }>('POST', `${base()}/feed/create`, feedBody('/scheduled.csv', schedule));
    expect(created.status).toBe(201);
    expect(await ended(created.body.queueId)).toMatchObject({ status: 'Completed', totalItems: 5 });
    const nextRun = async () =>
      (await system.rows<{ next_run_at: Date }>('asset_sources', 'SELECT next_run_at FROM feed_sources WHERE asset_source_id = ?', [created.body.id]))[0]
        .next_run_at;
    expect((await nextRun()).getTime()).toBeGreaterThan(Date.now());
    const scheduledRuns = () =>
      system.rows<{ queue_id: string }>(
        'asset_sources',
        "SELECT queue_id FROM feed_runs WHERE asset_source_id = ? AND run_trigger = 'schedule' ORDER BY created_at",
        [created.body.id],
      );

    /** Moves the next run into the past (the clock cannot be), then waits for the sweep to start it and for it to end. */
    const fallDue = async (runsBefore: number) => {
      await system.sql('asset_sources', 'UPDATE feed_sources SET next_run_at = NOW(3) - INTERVAL 1 SECOND WHERE asset_source_id = ?', [created.body.id]);
      const deadline = Date.now() + 20_000;
      while ((await scheduledRuns()).length === runsBefore) {
        if (Date.now() > deadline) throw new Error('the sweep started no run');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const runs = await scheduledRuns();
      expect(runs).toHaveLength(runsBefore + 1);
      // The sweep hands the run to the queue view just after its transaction commits: the row read above
      // can be a moment ahead of it (a caller's run, by contrast, is readable once create answers).
      const queueId = runs[runsBefore].queue_id;
      await waitUntil(async () => (await call('GET', `/v2/queues/${queueId}/status`)).status === 200, {
        what: "the scheduled run's queue",
        timeoutMs: 5_000,
        everyMs: 50,
      });
      return ended(queueId);
    };

    feeds.set('/scheduled.csv', csv(products(8)));
    expect(await fallDue(0)).toMatchObject({ status: 'Completed', totalItems: 8 });
    expect((await data(created.body.id)).rowCount).toBe(8);
    // Claimed by moving the next run on: the next hour's slot, not the past one again.
    expect((await nextRun()).getTime()).toBeGreaterThan(Date.now());

    expect(await fallDue(1)).toMatchObject({ status: 'Completed', message: expect.stringMatching(/^Skipped: the feed is unchanged/) });
    expect((await data(created.body.id)).rowCount).toBe(8);

    // The owner finds the scheduled runs' queue ids on the source: newest first, a page at a time.
    const [first, second] = (await scheduledRuns()).map((r) => r.queue_id);
    type RunsPage = { runs: Json[]; total: number; next: string | null; previous: string | null };
    const runs = await call<RunsPage>('GET', `${base()}/feed/${created.body.id}/runs`, undefined, viewKey);
    expect(runs.status).toBe(200);
    expect(runs.body).toMatchObject({ total: 3, next: null, previous: null });
    expect(runs.body.runs.map((r) => [r.queueId, r.trigger, r.status])).toEqual([
      [second, 'schedule', 'Skipped'],
      [first, 'schedule', 'Completed'],
      [created.body.queueId, 'create', 'Completed'],
    ]);
    expect(runs.body.runs[1]).toMatchObject({ rows: 8, rowsStored: 8, message: 'Completed: 8 rows serving, 8 read.' });
    const paged = await call<RunsPage>('GET', `${base()}/feed/${created.body.id}/runs?offset=1&limit=1`);
    expect(paged.body.runs.map((r) => r.queueId)).toEqual([first]);
    const followed = await call<RunsPage>('GET', new URL(paged.body.next as string).pathname + new URL(paged.body.next as string).search);
    expect(followed.body.runs.map((r) => r.queueId)).toEqual([created.body.queueId]);
    // Past the end: no next, and previous is the last page with runs, not another empty one.
    const past = await call<RunsPage>('GET', `${base()}/feed/${created.body.id}/runs?offset=10&limit=2`);
    expect(past.body).toMatchObject({ runs: [], total: 3, next: null, previous: `${system.baseUrl}${base()}/feed/${created.body.id}/runs?offset=2&limit=2` });
    expectProblem(await call('GET', `${base()}/feed/${created.body.id}/runs`, undefined, otherKey), 404, 'ACCOUNT_NOT_FOUND');
    expectProblem(await call('GET', `${base(sameOrgAccount)}/feed/${created.body.id}/runs`), 404, 'ASSET_SOURCE_NOT_FOUND');
    expectProblem(await call('GET', `${base()}/feed/${created.body.id}/runs?limit=101`), 400, 'VALIDATION_FAILED');
  });

  it('creates from the output of process, refusing columns the feed config does not name', async () => {
    feeds.set('/small.csv', csv(products(3)));
    const feedConfig = {
      rootIsObject: false,
      rowXPath: '',
      xpathMap: {},
      csvColumns: { sku: 0, name: 1, category: 2, price: 3 },
      memPerRow: 0,
      estRowsPerChunk: 0,
      oneRowPerObject: false,
      rootIsArray: false,
      cdp: false,
      fileId: '',
      cdpXpathMap: {},
    };
    const refused = await call('POST', `${base()}/feed`, feedBody('/small.csv', { feedConfig: { ...feedConfig, csvColumns: { sku: 0, name: 1, price: 3 } } }));
    expectProblem(refused, 400, 'VALIDATION_FAILED');
    expect(refused.body.errors).toEqual([expect.objectContaining({ pointer: '/columnNames/2', code: 'UNKNOWN_COLUMN' })]);
    // A hand-edited config is refused naming the member: read as given, it would serve empty cells or fail the run.
    const misshapen: [Json, string][] = [
      [{ csvColumns: { sku: 'x', name: 1, category: 2, price: 3 } }, '/feedConfig/csvColumns/sku'],
      [{ csvColumns: { sku: -5, name: 1, category: 2, price: 3 } }, '/feedConfig/csvColumns/sku'],
      [{ csvColumns: null }, '/feedConfig/csvColumns'],
      [{ rowXPath: 7 }, '/feedConfig/rowXPath'],
      [{ rows: [] }, '/feedConfig/rows'],
    ];
    for (const [change, pointer] of misshapen) {
      const answer = await call('POST', `${base()}/feed`, feedBody('/small.csv', { feedConfig: { ...feedConfig, ...change } }));
      expectProblem(answer, 400, 'VALIDATION_FAILED');
      expect({ change, errors: answer.body.errors }).toEqual({ change, errors: [expect.objectContaining({ pointer })] });
    }
    const created = await call<{ id: number; queueId: string }>('POST', `${base()}/feed`, feedBody('/small.csv', { feedConfig }));
    expect(created.status).toBe(201);
    expect(await ended(created.body.queueId)).toMatchObject({ status: 'Completed' });
    expect((await data(created.body.id)).data).toHaveLength(3);
  });

  it('reads an objstore feed at s3://bucket/key on the endpoint and region given, and sends its keys to no other server', async () => {
    const bucket = bucketServer.client();
    await bucket.makeBucket('exports');
    await bucket.putObject('exports', 'daily/products.csv', Buffer.from(csv(products(4))));
    const objstore = {
      urlType: 'objstore',
      url: 's3://exports/daily/products.csv',
      urlConfig: { accessKey: 'retailer-ak', secretKey: BUCKET_SECRET, endpoint: bucketServer.endpoint, region: 'eu-west-3' },
    };
    const created = await call<{ id: number; queueId: string }>('POST', `${base()}/feed/create`, feedBody('', { assetSourceName: 'Bucket feed', ...objstore }));
    expect(created.status).toBe(201);
    expect(await ended(created.body.queueId)).toMatchObject({ status: 'Completed', totalProcessed: 4 });
    expect((await data(created.body.id)).data.map((row) => row.sku)).toEqual(['P000', 'P001', 'P002', 'P003']);
    const detail = await call<{ feed: Json }>('GET', `${base()}/${created.body.id}`);
    expect(detail.body.feed).toMatchObject({ urlConfig: { endpoint: bucketServer.endpoint, region: 'eu-west-3' }, credentialsSet: ['accessKey', 'secretKey'] });
    expect(detail.text).not.toContain(BUCKET_SECRET);

    // The same server: the keys stay. Another server: they are asked for again, and nothing changes.
    const withoutKeys = { endpoint: bucketServer.endpoint, region: 'eu-west-3' };
    const same = await call<{ queueId: string }>('PUT', `${base()}/feed/${created.body.id}`, feedBody('', { ...objstore, urlConfig: withoutKeys }));
    expect(same.status).toBe(200);
    expect(await ended(same.body.queueId)).toMatchObject({ status: 'Completed' });
    const elsewhere = await call(
      'PUT',
      `${base()}/feed/${created.body.id}`,
      feedBody('', { ...objstore, urlConfig: { ...withoutKeys, endpoint: 'http://203.0.113.9:9000' } }),
    );
    expectProblem(elsewhere, 400, 'VALIDATION_FAILED');
    expect(elsewhere.body.errors).toEqual([
      expect.objectContaining({ pointer: '/urlConfig/accessKey', code: 'REQUIRED', detail: expect.stringContaining('former server') }),
      expect.objectContaining({ pointer: '/urlConfig/secretKey', code: 'REQUIRED' }),
    ]);
    expect((await call<{ feed: Json }>('GET', `${base()}/${created.body.id}`)).body.feed).toMatchObject({ urlConfig: { endpoint: bucketServer.endpoint } });
    // endpoint names a server for an s3:// url only.
    const misplaced = await call('POST', `${base()}/feed/create`, feedBody('', { ...objstore, url: `${bucketServer.endpoint}/exports/daily/products.csv` }));
    expectProblem(misplaced, 400, 'VALIDATION_FAILED');
    expect(misplaced.body.errors).toEqual([expect.objectContaining({ pointer: '/urlConfig/endpoint', code: 'NOT_ALLOWED' })]);
  });

  it('pins the host key an sftp server first showed, refuses a server with another, and takes a new key only from its owner', async () => {
    const sftp = {
      urlType: 'sftp',
      url: `sftp://${sftpServer.hostPort}/exports/products.csv`,
      urlConfig: { username: 'feeder', password: SECRET },
    };
    // Process shows the server's host key, for its owner to check before creating the source.
    const processed = await call<{ hostKeyFingerprint?: string; sample: Json }>('POST', `${base()}/feed/process`, { ...sftp, contentType: 'csv' });
    expect(processed.body).toMatchObject({ hostKeyFingerprint: sftpServer.hostKeyFingerprint, sample: { sku: ['P000', 'P001'] } });
    const created = await call<{ id: number; queueId: string }>('POST', `${base()}/feed/create`, feedBody('', { assetSourceName: 'SFTP feed', ...sftp }));
    expect(await ended(created.body.queueId)).toMatchObject({ status: 'Completed', totalProcessed: 2 });
    type Detail = { feed: { urlConfig: Json } };
    const pinned = sftpServer.hostKeyFingerprint;
    expect((await call<Detail>('GET', `${base()}/${created.body.id}`)).body.feed.urlConfig).toMatchObject({ hostKeyFingerprint: pinned });

    // The same address now answers with another host key: refused before any credential is sent; the rows keep serving.
    const { port } = sftpServer;
    await sftpServer.close();
    sftpServer = await startFeedSftpServer({ ...SFTP_SERVER, port });
    const again = await call<{ queueId: string }>(
      'PUT',
      `${base()}/feed/${created.body.id}`,
      feedBody('', { assetSourceName: 'SFTP feed', ...sftp, urlConfig: {} }),
    );
    const refused = await ended(again.body.queueId);
    expect(refused.status).toBe('Failed');
    expect(refused.message).toContain(`presented host key ${sftpServer.hostKeyFingerprint}, not the pinned ${pinned}`);
    expect(sftpServer.authentications()).toBe(0);
    expect((await data(created.body.id)).rowCount).toBe(2);

    // Its owner confirms the new key.
    const confirmed = await call<{ queueId: string }>(
      'PUT',
      `${base()}/feed/${created.body.id}`,
      feedBody('', { assetSourceName: 'SFTP feed', ...sftp, urlConfig: { hostKeyFingerprint: sftpServer.hostKeyFingerprint } }),
    );
    expect(await ended(confirmed.body.queueId)).toMatchObject({ status: 'Completed' });
    expect((await call<Detail>('GET', `${base()}/${created.body.id}`)).body.feed.urlConfig).toMatchObject({
      hostKeyFingerprint: sftpServer.hostKeyFingerprint,
    });
    const malformed = await call('PUT', `${base()}/feed/${created.body.id}`, feedBody('', { ...sftp, urlConfig: { hostKeyFingerprint: 'MD5:aa:bb' } }));
    expectProblem(malformed, 400, 'VALIDATION_FAILED');
    expect(malformed.body.errors).toEqual([expect.objectContaining({ pointer: '/urlConfig/hostKeyFingerprint' })]);
  });

  it('refuses bad input naming the field, and stores nothing', async () => {
    const before = (await call<{ assetSources: Json[] }>('GET', `${base()}?limit=100`)).body.assetSources.length;
    const cases: [Json, string, string][] = [
      [{ assetKeyColumn: 'ean' }, '/assetKeyColumn', 'UNKNOWN_COLUMN'],
      [{ cdp: true, customCode: '' }, '/customCode', 'REQUIRED'],
      [{ urlType: 'objstore', url: 's3://bucket/feed.csv', urlConfig: { accessKey: 'AK' } }, '/urlConfig/secretKey', 'REQUIRED'],
      [
        { urlType: 'objstore', url: 's3://bucket/feed.csv', urlConfig: { accessKey: 'AK', secretKey: 'SK', region: 'EU West' } },
        '/urlConfig/region',
        'INVALID_FORMAT',
      ],
      [{ urlType: 'ftp', url: 'ftp://feeds.example.com/f.csv', urlConfig: { httpMethod: 'GET' } }, '/urlConfig/httpMethod', 'UNKNOWN_FIELD'],
      [{ urlType: 'gopher' }, '/urlType', 'NOT_ALLOWED'],
      [{ characterEncoding: 'latin1' }, '/characterEncoding', 'NOT_ALLOWED'],
      [{ csvSeparator: 'semicolon' }, '/csvSeparator', 'NOT_ALLOWED'],
      [{ isScheduled: true, frequency: 'MONTHLY', startTime: '06:00' }, '/frequency', 'NOT_ALLOWED'],
      [{ isScheduled: true, frequency: 'DAILY', startTime: '6am' }, '/startTime', 'INVALID_FORMAT'],
      [{ isScheduled: true, frequency: 'DAILY' }, '/startTime', 'REQUIRED'],
      [{ missingRowPolicy: 'archive' }, '/missingRowPolicy', 'NOT_ALLOWED'],
    ];
    for (const [overrides, pointer, code] of cases) {
      const answer = await call('POST', `${base()}/feed/create`, feedBody('/catalog.csv', overrides));
      expectProblem(answer, 400, 'VALIDATION_FAILED');
      expect({ overrides, errors: answer.body.errors }).toEqual({ overrides, errors: expect.arrayContaining([expect.objectContaining({ pointer, code })]) });
    }
    expect((await call<{ assetSources: Json[] }>('GET', `${base()}?limit=100`)).body.assetSources).toHaveLength(before);
    expectProblem(await call('POST', `${base()}/feed/create`, feedBody('/catalog.csv'), viewKey), 403, 'PERMISSION_DENIED');
    expectProblem(await call('POST', `${base(otherAccount)}/feed/create`, feedBody('/catalog.csv')), 404, 'ACCOUNT_NOT_FOUND');
  });

  it('keeps the old rows serving when the new feed is missing or shrinks, says why, and serves a held version once confirmed', async () => {
    feeds.set('/daily.csv', csv(products(20)));
    const created = await call<{ id: number; queueId: string }>('POST', `${base()}/feed/create`, feedBody('/daily.csv'));
    await ended(created.body.queueId);
    const before = (await data(created.body.id)).data;
    expect(before).toHaveLength(20);

    feeds.delete('/daily.csv');
    const broken = await call<{ queueId: string }>('PUT', `${base()}/feed/${created.body.id}`, feedBody('/daily.csv'));
    expect(broken.status).toBe(200);
    const failed = await ended(broken.body.queueId);
    expect(failed.status).toBe('Failed');
    expect(failed.message).toMatch(/no feed at http:\/\/127\.0\.0\.1:\d+\/daily\.csv.*unchanged/);
    expect((await data(created.body.id)).data).toEqual(before);

    feeds.set('/daily.csv', csv(products(5)));
    const shrunk = await call<{ queueId: string }>('PUT', `${base()}/feed/${created.body.id}`, feedBody('/daily.csv'));
    const held = await ended(shrunk.body.queueId);
    expect(held).toMatchObject({ status: 'Failed', message: expect.stringMatching(/^Held: the new version has 5 rows, 75% fewer than the 20 serving/) });
    expect((await data(created.body.id)).data).toEqual(before);
    const detail = await call<{ feed: { held: { queueId: string } } }>('GET', `${base()}/${created.body.id}`);
    expect(detail.body.feed.held.queueId).toBe(shrunk.body.queueId);

    const confirmed = await call<Json>('POST', `${base()}/feed/${created.body.id}/confirm`);
    expect(confirmed.body).toEqual({ msg: 'The held feed version is serving.', queueId: shrunk.body.queueId, rowCount: 5 });
    expect((await data(created.body.id)).data).toHaveLength(5);
    expectProblem(await call('POST', `${base()}/feed/${created.body.id}/confirm`), 409, 'FEED_NOTHING_HELD');
    expect((await call<Json>('GET', `${base()}/feed/runs/${shrunk.body.queueId}`)).body).toMatchObject({
      status: 'Completed',
      message: expect.stringMatching(/^Confirmed/),
    });
  });

  it('keeps the columns of the rows serving through an update that changes them, shown as feed.pendingColumns until its version serves', async () => {
    feeds.set('/rekeyed.csv', csv(products(20)));
    const created = await call<{ id: number; queueId: string }>('POST', `${base()}/feed/create`, feedBody('/rekeyed.csv'));
    await ended(created.body.queueId);
    type Detail = { assetSourceColumns: string[]; assetKeyColumn: string | null; feed: { pendingColumns?: Json } };
    const detail = async () => (await call<Detail>('GET', `${base()}/${created.body.id}`)).body;
    const byName = { assetKeyColumn: 'name', columnNames: ['sku', 'name', 'category'], reportingColumn: null };

    // The new version comes back a quarter of the size: held, the old rows and their columns serving meanwhile.
    feeds.set('/rekeyed.csv', csv(products(5)));
    const update = await call<{ queueId: string }>('PUT', `${base()}/feed/${created.body.id}`, feedBody('/rekeyed.csv', byName));
    expect(update.status).toBe(200);
    expect((await ended(update.body.queueId)).message).toMatch(/^Held:/);
    const waiting = await detail();
    expect(waiting).toMatchObject({ assetSourceColumns: ['sku', 'name', 'category', 'price'], assetKeyColumn: 'sku' });
    expect(waiting.feed.pendingColumns).toEqual({
      assetSourceColumns: ['sku', 'name', 'category'],
      assetKeyColumn: 'name',
      rotationWeightColumn: null,
      assetGroupColumn: 'category',
      assetVariantColumn: null,
      reportingColumn: null,
    });
    expect((await data(created.body.id)).data[0]).toEqual({ sku: 'P000', name: 'Product 0', category: 'hats', price: '0.99' });

    expect((await call('POST', `${base()}/feed/${created.body.id}/confirm`)).status).toBe(200);
    const confirmed = await detail();
    expect(confirmed).toMatchObject({ assetSourceColumns: ['sku', 'name', 'category'], assetKeyColumn: 'name' });
    expect(confirmed.feed.pendingColumns).toBeUndefined();
    expect((await data(created.body.id)).data).toEqual(
      products(5).map((line) => {
        const [sku, name, category] = line.split(',');
        return { sku, name, category };
      }),
    );
  });

  it('answers a refresh of a source whose run waits to read its host again with that run, which reads at once, and says so', async () => {
    const created = await call<{ id: number; queueId: string }>('POST', `${base()}/feed/create`, feedBody('/down.csv'));
    const runPath = `${base()}/feed/runs/${created.body.queueId}`;
    await waitUntil(async () => /Reading it again in 1 min \(attempt 2 of 3\)/.test((await call<{ message: string }>('GET', runPath)).body.message), {
      timeoutMs: 30_000,
      everyMs: 100,
      what: 'the run to wait to read the feed again',
    });
    feeds.set('/down.csv', csv(products(3)));
    const refreshed = await call<{ msg: string; queueId: string }>('POST', `${base()}/feed/${created.body.id}/refresh`);
    expect(refreshed.body).toEqual({ msg: 'The run waiting to read this feed again reads it now.', queueId: created.body.queueId });
    expect(await ended(created.body.queueId)).toMatchObject({ status: 'Completed', totalProcessed: 3 });
  });

  it('cancels a running run, or an update supersedes it: the transfer stops, the queue fails saying so, and the rows serving stay', async () => {
    feeds.set('/cancelled.csv', csv(products(3)));
    const created = await call<{ id: number; queueId: string }>('POST', `${base()}/feed/create`, feedBody('/cancelled.csv'));
    await ended(created.body.queueId);
    const before = (await data(created.body.id)).data;

    endlessClosed = false;
    const update = await call<{ queueId: string }>('PUT', `${base()}/feed/${created.body.id}`, feedBody('/endless.csv'));
    const runPath = `${base()}/feed/runs/${update.body.queueId}`;
    await started(runPath);
    expectProblem(await call('POST', `${runPath}/cancel`, undefined, viewKey), 403, 'PERMISSION_DENIED');
    const requested = await call<Json>('POST', `${runPath}/cancel`);
    expect(requested.status).toBe(200);
    expect(requested.body).toMatchObject({ queueId: update.body.queueId, status: 'Processing', cancelRequestedTime: expect.any(String) });

    expect(await ended(update.body.queueId)).toMatchObject({ status: 'Failed', message: expect.stringMatching(/^Cancelled by the owner/) });
    expect(endlessClosed).toBe(true);
    expect((await call<Json>('GET', runPath)).body).toMatchObject({ status: 'Cancelled', finishedTime: expect.any(String) });
    expect((await data(created.body.id)).data).toEqual(before);
    expectProblem(await call('POST', `${runPath}/cancel`), 409, 'FEED_RUN_ENDED');
    expectProblem(await call('POST', `${base()}/feed/runs/5f0c6f9e-2b1a-4c39-9d7e-0a4b8f3c2d11/cancel`), 404, 'FEED_RUN_NOT_FOUND');
    expectProblem(await call('POST', `${base()}/feed/runs/not%20an%20id/cancel`), 400, 'VALIDATION_FAILED');

    // An update while a run of the old settings reads: that run is superseded, and names the one that replaced it.
    endlessClosed = false;
    const slow = await call<{ queueId: string }>('PUT', `${base()}/feed/${created.body.id}`, feedBody('/endless.csv'));
    const slowPath = `${base()}/feed/runs/${slow.body.queueId}`;
    await started(slowPath);
    feeds.set('/cancelled.csv', csv(products(4)));
    const fixed = await call<{ queueId: string }>('PUT', `${base()}/feed/${created.body.id}`, feedBody('/cancelled.csv'));
    expect(await ended(slow.body.queueId)).toMatchObject({ status: 'Failed', message: expect.stringMatching(`^Superseded by run ${fixed.body.queueId} `) });
    expect(endlessClosed).toBe(true);
    expect((await call<Json>('GET', slowPath)).body).toMatchObject({ status: 'Cancelled', supersededBy: fixed.body.queueId });
    expect(await ended(fixed.body.queueId)).toMatchObject({ status: 'Completed', totalProcessed: 4 });
    expect((await data(created.body.id)).data).toHaveLength(4);

    // The same settings sent again leave the run under way alone: the new run waits its turn.
    const reading = await call<{ queueId: string }>('PUT', `${base()}/feed/${created.body.id}`, feedBody('/endless.csv'));
    const readingPath = `${base()}/feed/runs/${reading.body.queueId}`;
    await started(readingPath);
    const again = await call<{ queueId: string }>('PUT', `${base()}/feed/${created.body.id}`, feedBody('/endless.csv'));
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect((await call<Json>('GET', readingPath)).body).toMatchObject({ status: 'Processing', cancelRequestedTime: null });
    expect((await call<Json>('GET', `${base()}/feed/runs/${again.body.queueId}`)).body).toMatchObject({ status: 'Queued' });
    expect((await call<Json>('GET', `/v2/queues/${again.body.queueId}/status`)).body).toMatchObject({
      message: 'Waiting for the run of this feed source under way to end',
    });
    // The waiting run holds none of the replica's ingestion slots (FEED_INGEST_CONCURRENCY, 2): with one
    // reading and one waiting, another source's feed is still read and served.
    feeds.set('/meanwhile.csv', csv(products(3)));
    const meanwhile = await call<{ queueId: string }>('POST', `${base()}/feed/create`, feedBody('/meanwhile.csv'));
    expect(meanwhile.status).toBe(201);
    expect(await ended(meanwhile.body.queueId)).toMatchObject({ status: 'Completed', totalProcessed: 3 });
    expect((await call<Json>('GET', `${base()}/feed/runs/${again.body.queueId}`)).body).toMatchObject({ status: 'Queued' });
    expect((await call('POST', `${readingPath}/cancel`)).status).toBe(200);
    expect(await ended(reading.body.queueId)).toMatchObject({ status: 'Failed', message: expect.stringMatching(/^Cancelled by the owner/) });
    // Its turn: it reads (the feed never ends), until its owner cancels it too.
    await started(`${base()}/feed/runs/${again.body.queueId}`);
    expect((await call('POST', `${base()}/feed/runs/${again.body.queueId}/cancel`)).status).toBe(200);
    expect(await ended(again.body.queueId)).toMatchObject({ status: 'Failed', message: expect.stringMatching(/^Cancelled by the owner/) });
    expect((await data(created.body.id)).data).toHaveLength(4);
  });

  it('sets aside the rows a new version lacks under missingRowPolicy disable, counts them on the source, and serves them again when they return', async () => {
    feeds.set('/aside.csv', csv(products(5)));
    const created = await call<{ id: number; queueId: string }>('POST', `${base()}/feed/create`, feedBody('/aside.csv', { missingRowPolicy: 'disable' }));
    await ended(created.body.queueId);
    type Detail = { feed: { missingRowPolicy: string; disabledRows: number } };
    expect((await call<Detail>('GET', `${base()}/${created.body.id}`)).body.feed).toMatchObject({ missingRowPolicy: 'disable', disabledRows: 0 });

    feeds.set('/aside.csv', csv(products(3)));
    const fewer = await call<{ queueId: string }>('PUT', `${base()}/feed/${created.body.id}`, feedBody('/aside.csv'));
    expect((await ended(fewer.body.queueId)).message).toBe(
      'Completed: 3 rows serving, 3 read; 2 rows missing from the feed set aside (missingRowPolicy disable).',
    );
    expect((await call<Detail>('GET', `${base()}/${created.body.id}`)).body.feed.disabledRows).toBe(2);
    expect((await data(created.body.id)).data.map((row) => row.sku)).toEqual(['P000', 'P001', 'P002']);
    // Which rows are held aside, by key, a page at a time, as they were last served; a view-only key reads them.
    type Aside = { rows: { key: string; disabledTime: string; data: Json }[]; total: number; next: string | null; previous: string | null };
    const aside = await call<Aside>('GET', `${base()}/feed/${created.body.id}/disabled-rows?limit=1`, undefined, viewKey);
    expect(aside.status).toBe(200);
    expect(aside.body).toMatchObject({
      total: 2,
      previous: null,
      rows: [{ key: 'P003', data: { sku: 'P003', name: 'Product 3', category: 'shoes', price: '3.99' } }],
    });
    expect(Date.parse(aside.body.rows[0]?.disabledTime ?? '')).not.toBeNaN();
    const nextPage = await call<Aside>('GET', new URL(aside.body.next ?? '').pathname + new URL(aside.body.next ?? '').search, undefined, viewKey);
    expect(nextPage.body).toMatchObject({ rows: [{ key: 'P004' }], next: null });
    const pastAside = await call<Aside>('GET', `${base()}/feed/${created.body.id}/disabled-rows?offset=5&limit=1`);
    expect(pastAside.body).toMatchObject({
      rows: [],
      total: 2,
      next: null,
      previous: `${system.baseUrl}${base()}/feed/${created.body.id}/disabled-rows?offset=1&limit=1`,
    });
    expectProblem(await call('GET', `${base()}/feed/${created.body.id}/disabled-rows?limit=0`), 400, 'VALIDATION_FAILED');
    expectProblem(await call('GET', `${base(otherAccount)}/feed/${created.body.id}/disabled-rows`), 404, 'ACCOUNT_NOT_FOUND');
    expectProblem(await call('GET', `${base(sameOrgAccount)}/feed/${created.body.id}/disabled-rows`), 404, 'ASSET_SOURCE_NOT_FOUND');

    feeds.set('/aside.csv', csv(products(5)));
    const back = await call<{ queueId: string }>('PUT', `${base()}/feed/${created.body.id}`, feedBody('/aside.csv'));
    expect((await ended(back.body.queueId)).message).toBe('Completed: 5 rows serving, 5 read.');
    expect((await call<Detail>('GET', `${base()}/${created.body.id}`)).body.feed.disabledRows).toBe(0);
    expect((await call<{ rows: Json[]; total: number }>('GET', `${base()}/feed/${created.body.id}/disabled-rows`)).body).toMatchObject({ rows: [], total: 0 });
  });
});
