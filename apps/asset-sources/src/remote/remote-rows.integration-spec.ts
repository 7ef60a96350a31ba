import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openAssetSourcesTestBed, rejectionOf, type AssetSourcesTestBed } from '../asset-sources.test-support';
import { NO_SPECIAL_COLUMNS, type RemoteSettings } from '../sources/asset-source.model';
import { remoteRequest } from './remote-rows';

jest.setTimeout(60_000);

describe('remote sources (real MariaDB, a real HTTP endpoint on loopback)', () => {
  let bed: AssetSourcesTestBed;
  let server: Server;
  let origin: string;
  let clock = new Date('2026-06-01T00:00:00Z');
  const seen: string[] = [];
  let answer: { status: number; body: string } = { status: 200, body: '[{"sku":"A","price":1}]' };
  let nextAccount = 9000;
  const freshAccount = () => nextAccount++;

  const create = (account: number, remote: Partial<RemoteSettings> = {}, contentType: 'json' | 'csv' | 'xml' = 'json') =>
    bed.assetSources.createRemote(account, {
      definition: { assetSourceName: 'Remote', columnNames: ['sku', 'price'], columns: { ...NO_SPECIAL_COLUMNS, assetKeyColumn: 'sku' }, contentType },
      remote: { url: `${origin}/feed`, httpMethod: 'GET', additionalParams: '', cacheTime: 60, ...remote },
    });
  const read = async (account: number, id: number) => JSON.parse((await bed.assetSources.readData(account, id)).rowsJson) as unknown[];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push(`${req.method} ${req.url} ${body}`.trim());
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(answer.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    origin = `http://127.0.0.1:${port}`;
    bed = await openAssetSourcesTestBed('arem', { allowlist: `127.0.0.1:${port}`, now: () => clock });
  });

  afterAll(async () => {
    await bed?.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  beforeEach(() => {
    answer = { status: 200, body: '[{"sku":"A","price":1}]' };
  });

  it('builds the request: additionalParams as a query (GET) or a form body (POST)', () => {
    expect(remoteRequest({ url: 'https://x.test/a?k=1', httpMethod: 'GET', additionalParams: '?b=2', cacheTime: 0 })).toEqual({
      url: 'https://x.test/a?k=1&b=2',
      init: { method: 'GET' },
    });
    expect(remoteRequest({ url: 'https://x.test/a', httpMethod: 'POST', additionalParams: 'b=2', cacheTime: 0 }).init).toEqual({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'b=2',
    });
  });

  it('fetches on read, serves the copy for cacheTime seconds, then fetches again', async () => {
    const account = freshAccount();
    const id = await create(account, { cacheTime: 60 });
    const fetches = () => seen.filter((s) => s.startsWith('GET /feed')).length;
    const before = fetches();
    expect(await read(account, id)).toEqual([{ sku: 'A', price: 1 }]);
    answer = { status: 200, body: '[{"sku":"B","price":2}]' };
    clock = new Date(clock.getTime() + 59_000);
    expect(await read(account, id)).toEqual([{ sku: 'A', price: 1 }]);
    expect(fetches() - before).toBe(1);
    clock = new Date(clock.getTime() + 2_000);
    expect(await read(account, id)).toEqual([{ sku: 'B', price: 2 }]);
    expect(fetches() - before).toBe(2);
  });

  it('lets concurrent reads of a stale copy share one fetch', async () => {
    const account = freshAccount();
    const id = await create(account, { cacheTime: 60 });
    const before = seen.length;
    const reads = await Promise.all(Array.from({ length: 5 }, () => read(account, id)));
    expect(reads).toEqual(Array.from({ length: 5 }, () => [{ sku: 'A', price: 1 }]));
    expect(seen.length - before).toBe(1);
  });

  it('keeps the stored copy when a fetch fails, and answers 502 / 424 naming the cause', async () => {
    const account = freshAccount();
    const id = await create(account, { cacheTime: 0 });
    expect(await read(account, id)).toEqual([{ sku: 'A', price: 1 }]);
    answer = { status: 500, body: 'oops' };
    expect(await rejectionOf(bed.assetSources.readData(account, id))).toMatchObject({ status: 502, code: 'REMOTE_SOURCE_BAD_STATUS' });
    answer = { status: 200, body: 'not json' };
    const malformed = await rejectionOf(bed.assetSources.readData(account, id));
    expect(malformed).toMatchObject({ status: 424, code: 'REMOTE_SOURCE_MALFORMED' });
    expect(String(malformed.detail)).toMatch(/not valid JSON/);
    expect((await bed.assetSources.get(account, id)).rowCount).toBe(1);
  });

  it('ranks recommendations over a remote source from a fresh copy', async () => {
    const account = freshAccount();
    const id = await create(account, { cacheTime: 0 });
    answer = { status: 200, body: '[{"sku":"A","price":1},{"sku":"B","price":2},{"sku":"C","price":9}]' };
    const rec = await bed.recommendations.create(account, id, {
      updateFrequency: 1,
      config: { type: 'content', maxRecommendations: 3, recommendationMap: [{ assetSourceColumn: 'price', dataType: 'numeric', acceptedRange: 1 }] },
    });
    expect(JSON.parse((await bed.assetSources.readData(account, rec)).rowsJson)).toEqual([
      { itemKey: 'A', recommendedItemKey: 'B', rank: 1, score: 1 },
      { itemKey: 'B', recommendedItemKey: 'A', rank: 1, score: 1 },
    ]);
  });

  it('refuses an address outside the allowlist without reaching it (424)', async () => {
    const account = freshAccount();
    const id = await create(account, { url: 'http://10.0.0.1/feed', cacheTime: 0 });
    expect(await rejectionOf(bed.assetSources.readData(account, id))).toMatchObject({ status: 424, code: 'REMOTE_SOURCE_REFUSED' });
  });

  it.each([
    ['url', { url: 'ftp://example.com/x' }, '/url'],
    ['httpMethod', { httpMethod: 'PUT' as never }, '/httpMethod'],
    ['cacheTime', { cacheTime: -1 }, '/cacheTime'],
  ])('refuses a bad %s', async (_name, remote, pointer) => {
    expect(await rejectionOf(create(freshAccount(), remote))).toMatchObject({ status: 400, errors: [expect.objectContaining({ pointer })] });
  });

  it('needs a contentType to parse with', async () => {
    const error = await rejectionOf(
      bed.assetSources.createRemote(freshAccount(), {
        definition: { assetSourceName: 'Remote', columnNames: ['sku'], columns: NO_SPECIAL_COLUMNS, contentType: null },
        remote: { url: `${origin}/feed`, httpMethod: 'GET', additionalParams: '', cacheTime: 0 },
      }),
    );
    expect(error).toMatchObject({ status: 400, errors: [expect.objectContaining({ pointer: '/contentType', code: 'REQUIRED' })] });
  });

  it('PUT drops the cached copy so the next read fetches with the new settings', async () => {
    const account = freshAccount();
    const id = await create(account, { cacheTime: 600 });
    await read(account, id);
    await bed.assetSources.replaceRemote(account, id, {
      definition: { assetSourceName: 'Remote', columnNames: ['sku', 'price'], columns: NO_SPECIAL_COLUMNS, contentType: 'json' },
      remote: { url: `${origin}/feed`, httpMethod: 'POST', additionalParams: 'page=2', cacheTime: 600 },
    });
    answer = { status: 200, body: '{"items":[{"sku":"Z"}]}' };
    expect(await read(account, id)).toEqual([{ sku: 'Z' }]);
    expect(seen.at(-1)).toBe('POST /feed page=2');
  });
});
