import { startFeedHttpServer, waitUntil, writeEndlessCsv } from '@platform/testing';
import { admin, E2eSystem, Http, httpClient, startE2eSystem } from './e2e-system';
import { httpCsvFeedBody } from './feed-fixture';

jest.setTimeout(240_000);

const HEADER = 'sku,name,category,price\n';
const ROWS = 50;
/** While true, /switch.csv sends rows without end (until its reader closes); then a feed of ROWS rows. */
let switchDrips = true;

const startFeedHost = () =>
  startFeedHttpServer((_req, res) => {
    if (switchDrips) return writeEndlessCsv(res, HEADER, (n) => `D${n},Drip ${n},hats,1.00\n`);
    res.writeHead(200, { 'content-type': 'text/csv' }).end(HEADER + Array.from({ length: ROWS }, (_, i) => `P${i},Product ${i},hats,${i}.99\n`).join(''));
  });

describe('a feed run under way when its asset-sources replica shuts down', () => {
  let system: E2eSystem;
  let http: Http;
  let host: Awaited<ReturnType<typeof startFeedHost>>;
  let account: number;
  let key: string;

  beforeAll(async () => {
    host = await startFeedHost();
    system = await startE2eSystem('fsd', {
      // An ack wait far past the spec's deadline: the run can only come back in time by being handed back.
      env: { OUTBOUND_ALLOWLIST: host.hostPort, JOB_ACK_WAIT_MS: '180000' },
    });
    http = httpClient(system.baseUrl);
    const a = admin(http);
    const orgId = await a.createOrg({ name: 'Shutdown Retail', isRetailer: true });
    account = await a.createAccount(orgId, 'Feeds');
    key = (await a.createKey({ orgId, permissions: ['*'] })).apiKey;
  });

  afterAll(async () => {
    await system?.stop();
    await host?.close();
  });

  const queue = async (queueId: string) =>
    (await http<{ status: string; message: string; totalProcessed: number }>('GET', `/v2/queues/${queueId}/status`, { key })).body;

  it('is handed back at shutdown and read whole by the replica that takes over, well before the ack wait', async () => {
    const created = await http<{ id: number; queueId: string }>('POST', `/v2/accounts/${account}/asset-sources/feed/create`, {
      key,
      json: httpCsvFeedBody(`${host.origin}/switch.csv`, ['sku', 'name', 'category', 'price'], { assetSourceName: 'Endless until the restart' }),
    });
    expect(created.status).toBe(201);
    const { queueId } = created.body;
    await waitUntil(async () => (await queue(queueId)).totalProcessed > 0, { timeoutMs: 30_000, what: 'the run to read rows' });

    // The replica reading it shuts down (SIGTERM); the feed is finite from now on.
    switchDrips = false;
    const replica = [...system.processes, ...system.otherBackends].find((p) => p.name === 'asset-sources');
    if (!replica) throw new Error('no asset-sources process');
    const stoppingAt = Date.now();
    expect(await replica.stop(30_000)).toBe(0);
    const shutdownMs = Date.now() - stoppingAt;
    const handedBack = await queue(queueId);
    expect(handedBack).toMatchObject({ status: 'Processing' });
    expect(handedBack.message).toMatch(/^The worker running this job is shutting down\. Another worker takes the job over/);
    expect(await system.rows('asset_sources', 'SELECT status FROM feed_runs WHERE queue_id = ?', [queueId])).toEqual([{ status: 'Processing' }]);

    // Another replica starts: it takes the run over at once and reads the feed from its start.
    const takingOverAt = Date.now();
    await system.restartService('asset-sources');
    await waitUntil(async () => ['Completed', 'Failed'].includes((await queue(queueId)).status), { timeoutMs: 60_000, what: 'the run to end' });
    const takeOverMs = Date.now() - takingOverAt;
    expect(await queue(queueId)).toMatchObject({ status: 'Completed', totalProcessed: ROWS, message: `Completed: ${ROWS} rows serving, ${ROWS} read.` });
    // The gateway finds the new replica on its next connection attempt (503 until then).
    const detail = () => http<{ rowCount: number }>('GET', `/v2/accounts/${account}/asset-sources/${created.body.id}`, { key });
    await waitUntil(async () => (await detail()).status !== 503, { timeoutMs: 30_000, what: 'the gateway to reach the new replica' });
    expect(await detail()).toMatchObject({ status: 200, body: { rowCount: ROWS } });
    process.stdout.write(`feed shutdown: replica stopped in ${shutdownMs} ms, run taken over and completed ${takeOverMs} ms after the new replica started\n`);
  });
});
