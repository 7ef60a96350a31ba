import { startFeedHttpServer, startSilentTcpServer } from '@platform/testing';
import { admin, E2eSystem, expectProblem, Http, httpClient, startE2eSystem } from './e2e-system';

jest.setTimeout(180_000);

type Json = Record<string, unknown>;
const SECRET = 'process-pa55word-not-echoed';
const PROCESS_WAIT_MS = 6_000;

/** The retailer's feed host on loopback: a CSV behind basic auth, a Merchant RSS feed, HTML, and a 404 for the rest. */
const startFeedHost = () =>
  startFeedHttpServer((req, res) => {
    if (req.url === '/private/products.csv') {
      if (req.headers.authorization !== `Basic ${Buffer.from(`feeder:${SECRET}`).toString('base64')}`) return void res.writeHead(401).end();
      return void res.end('sku;name;price\nA1;Shirt;10.00\nA2;"Hat; red";4.50\n');
    }
    if (req.url === '/merchant.xml')
      return void res.end(
        '<rss xmlns:g="http://base.google.com/ns/1.0"><channel><item><g:id>M1</g:id><title>One</title></item><item><g:id>M2</g:id><title>Two</title></item></channel></rss>',
      );
    if (req.url === '/page.html') return void res.end('<html><body>Sign in</body>');
    res.writeHead(404).end();
  });

describe('process (36) over HTTP (gateway -> asset-sources -> the feed host)', () => {
  let system: E2eSystem;
  let http: Http;
  let host: Awaited<ReturnType<typeof startFeedHost>>;
  let silentHost: Awaited<ReturnType<typeof startSilentTcpServer>>;
  let account: number;
  let fullKey: string;
  let viewKey: string;
  let otherKey: string;

  const processPath = (a = account) => `/v2/accounts/${a}/asset-sources/feed/process`;
  const post = <T = Json>(json: unknown, key = fullKey, a = account) => http<T>('POST', processPath(a), { key, json });
  const csvBody = (overrides: Json = {}) => ({
    url: `${host.origin}/private/products.csv`,
    urlType: 'http',
    urlConfig: { httpMethod: 'GET', username: 'feeder', password: SECRET },
    contentType: 'csv',
    csvSeparator: 'auto',
    firstRowIsHeader: true,
    characterEncoding: 'UTF_8',
    cdp: false,
    ...overrides,
  });

  beforeAll(async () => {
    host = await startFeedHost();
    silentHost = await startSilentTcpServer();
    system = await startE2eSystem('feedproc', {
      env: {
        OUTBOUND_ALLOWLIST: `${host.hostPort},${silentHost.hostPort}`,
        FEED_SCHEDULE_SWEEP_MS: '0',
        // Past the gateway's usual backend deadline (GRPC_DEADLINE_MS, 5 s): process waits on the feed's host longer than that.
        FEED_PROCESS_TIMEOUT_MS: String(PROCESS_WAIT_MS),
      },
    });
    http = httpClient(system.baseUrl);
    const a = admin(http);
    const orgId = await a.createOrg({ name: 'Process Retail', isRetailer: true });
    account = await a.createAccount(orgId, 'Feeds');
    fullKey = (await a.createKey({ orgId, permissions: ['*'] })).apiKey;
    viewKey = (await a.createKey({ orgId, permissions: ['AssetSources_View'] })).apiKey;
    otherKey = (await a.createKey({ orgId: await a.createOrg({ name: 'Other', isRetailer: true }), permissions: ['*'] })).apiKey;
  });

  afterAll(async () => {
    await system?.stop();
    await host?.close();
    await silentHost?.close();
  });

  it('answers config, sample and cdpLogs for a CSV behind basic auth, without echoing the password, and the config creates the source', async () => {
    const answer = await post<{ config: Json; sample: Json; cdpLogs: string[] }>(csvBody());
    expect(answer.status).toBe(200);
    expect(answer.text).not.toContain(SECRET);
    expect(answer.body.config).toMatchObject({ csvColumns: { sku: 0, name: 1, price: 2 }, cdp: false, fileId: '' });
    expect(answer.body.sample).toEqual({ sku: ['A1', 'A2'], name: ['Shirt', 'Hat; red'], price: ['10.00', '4.50'] });
    expect(answer.body.cdpLogs).toEqual([]);

    const created = await http<{ id: number; queueId: string }>('POST', `/v2/accounts/${account}/asset-sources/feed`, {
      key: fullKey,
      json: { ...csvBody(), feedConfig: answer.body.config, assetSourceName: 'From process', columnNames: ['sku', 'name', 'price'], assetKeyColumn: 'sku' },
    });
    expect(created.status).toBe(201);
  });

  it('detects a Merchant RSS feed and runs customCode, its console output in cdpLogs', async () => {
    const xml = await post<{ config: Json; sample: Json }>(csvBody({ url: `${host.origin}/merchant.xml`, urlConfig: {}, contentType: 'xml' }));
    expect(xml.status).toBe(200);
    expect(xml.body.config).toMatchObject({ rowXPath: '/rss/channel/item', xpathMap: { id: 'g:id', title: 'title' } });
    const cdp = await post<{ config: Json; sample: Json; cdpLogs: string[] }>(
      csvBody({ cdp: true, customCode: 'console.log("saw", row.sku); return { sku: row.sku, label: row.name.toUpperCase() };' }),
    );
    expect(cdp.status).toBe(200);
    expect(cdp.body.sample).toEqual({ sku: ['A1', 'A2'], label: ['SHIRT', 'HAT; RED'] });
    expect(cdp.body.cdpLogs).toEqual(['saw A1', 'saw A2']);
    expect(cdp.body.config).toMatchObject({ cdp: true, cdpXpathMap: { sku: 'sku', label: 'label' } });
  });

  it('refuses bad enumerations, urlConfig the urlType does not take or needs, and cdp without code, naming each field', async () => {
    const enums = await post(csvBody({ urlType: 'gopher', contentType: 'yaml', characterEncoding: 'latin9', csvSeparator: 'semicolon' }));
    expectProblem(enums, 400, 'VALIDATION_FAILED');
    const pointers = (enums.body as { errors: Array<{ pointer: string }> }).errors.map((e) => e.pointer);
    expect(pointers).toEqual(expect.arrayContaining(['/urlType', '/contentType', '/characterEncoding', '/csvSeparator']));
    const wrongMember = await post(
      csvBody({ urlType: 'ftp', url: 'ftp://feeds.example.com/f.csv', urlConfig: { httpMethod: 'GET', username: 'u', password: 'p' } }),
    );
    expectProblem(wrongMember, 400, 'VALIDATION_FAILED');
    expect(wrongMember.text).toContain('/urlConfig/httpMethod');
    const objstore = await post(csvBody({ urlType: 'objstore', url: 's3://bucket/feed.csv', urlConfig: { accessKey: 'AK' } }));
    expectProblem(objstore, 400, 'VALIDATION_FAILED');
    expect(objstore.text).toContain('/urlConfig/secretKey');
    const cdp = await post(csvBody({ cdp: true, customCode: '' }));
    expectProblem(cdp, 400, 'VALIDATION_FAILED');
    expect(cdp.text).toContain('/customCode');
  });

  it('answers each cause a feed cannot be read for', async () => {
    expectProblem(await post(csvBody({ urlConfig: { username: 'feeder', password: 'wrong-secret-value' } })), 424, 'FEED_AUTH_FAILED');
    expectProblem(await post(csvBody({ url: `${host.origin}/gone.csv`, urlConfig: {} })), 424, 'FEED_NOT_FOUND');
    expectProblem(await post(csvBody({ url: `${host.origin}/page.html`, urlConfig: {}, contentType: 'json' })), 424, 'FEED_NOT_A_FEED');
    expectProblem(await post(csvBody({ url: 'http://169.254.169.254/latest/meta-data/', urlConfig: {} })), 424, 'FEED_REFUSED');
    expectProblem(await post(csvBody({ url: 'http://10.0.0.1/feed.csv', urlConfig: {} })), 424, 'FEED_REFUSED');
  });

  it("answers a host that never hands over the head as that host's timeout, after waiting longer than other calls may (not a 504)", async () => {
    const url = `ftp://${silentHost.hostPort}/products.csv`;
    const answer = await post(csvBody({ url, urlType: 'ftp', urlConfig: {} }));
    expectProblem(answer, 502, 'FEED_UNREACHABLE');
    expect(answer.body).toMatchObject({ cause: 'OUTBOUND_TIMEOUT', detail: `Fetching ${url} did not finish within ${PROCESS_WAIT_MS} ms.` });
  });

  it('needs AssetSources_Edit, and another org sees no account', async () => {
    expectProblem(await post(csvBody(), viewKey), 403, 'PERMISSION_DENIED');
    expectProblem(await post(csvBody(), otherKey), 404, 'ACCOUNT_NOT_FOUND');
  });
});
