import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedS3, type EmbeddedS3 } from '@platform/s3';
import { freePort } from '@platform/testing';
import { admin, E2eSystem, expectProblem, Http, httpClient, startE2eSystem } from './e2e-system';

jest.setTimeout(120_000);

type Json = Record<string, unknown>;
type Row = Record<string, unknown>;

interface Remote {
  origin: string;
  /** Requests the server saw, as `METHOD path body`. */
  seen: string[];
  close(): Promise<void>;
}

/** A customer's endpoint on loopback: answers each path from `routes`, recording what reached it. */
async function startRemote(routes: Record<string, (req: IncomingMessage, body: string) => { status?: number; type: string; body: string }>): Promise<Remote> {
  const seen: string[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      seen.push(`${req.method} ${req.url} ${body}`.trim());
      const route = routes[(req.url ?? '').split('?')[0] ?? ''];
      const answer = route ? route(req, body) : { status: 404, type: 'text/plain', body: 'no such path' };
      res.writeHead(answer.status ?? 200, { 'content-type': answer.type });
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const PRODUCTS: Row[] = [
  { sku: 'A', category: 'shoes', brand: 'nike', price: 100, weight: 2 },
  { sku: 'B', category: 'shoes', brand: 'adidas', price: 105, weight: 1 },
  { sku: 'C', category: 'shoes', brand: 'nike', price: 200, weight: 1 },
  { sku: 'D', category: 'shirts', brand: 'nike', price: 98, weight: 3 },
  { sku: 'E', category: 'hats', brand: 'puma', price: 500, weight: 1 },
];
const inlineBody = (overrides: Json = {}) => ({
  assetSourceName: 'Products',
  columnNames: ['sku', 'category', 'brand', 'price', 'weight'],
  assetKeyColumn: 'sku',
  assetGroupColumn: 'category',
  rotationWeightColumn: 'weight',
  contentType: 'json',
  data: PRODUCTS,
  ...overrides,
});

describe('asset sources over HTTP (gateway -> asset-sources -> MariaDB)', () => {
  let system: E2eSystem;
  let http: Http;
  let remote: Remote;
  let s3: EmbeddedS3 | undefined;
  let s3Dir: string | undefined;
  let closedPort: number;
  let accountA: number;
  let accountB: number;
  let foreignAccount: number;
  let fullKey: string;
  let viewKey: string;
  let otherKey: string;
  let remoteFails = false;

  const base = (account = accountA) => `/v2/accounts/${account}/asset-sources`;
  const call = <T = Json>(method: string, path: string, json?: unknown, key = fullKey) => http<T>(method, path, { key, json });
  const createInline = async (body: Json = inlineBody(), account = accountA) => {
    const created = await call<{ id: number; msg: string }>('POST', `${base(account)}/inline`, body);
    expect(created.status).toBe(201);
    return created.body.id;
  };
  const rows = async (id: number, account = accountA) => (await call<{ data: Row[] }>('GET', `${base(account)}/${id}/data?limit=100`)).body.data;

  /** Every item of a list, following `next` (or the named link) to the end; each page must answer 200. */
  async function follow<T>(first: string, member: string, link = 'next'): Promise<{ items: T[]; pages: Json[] }> {
    const items: T[] = [];
    const pages: Json[] = [];
    let url = first;
    while (url) {
      const page = await call<Json>('GET', url);
      expect(page.status).toBe(200);
      pages.push(page.body);
      items.push(...(page.body[member] as T[]));
      url = page.body[link] as string;
    }
    return { items, pages };
  }

  beforeAll(async () => {
    remote = await startRemote({
      '/products.json': () => ({ type: 'application/json', body: JSON.stringify({ items: PRODUCTS.slice(0, 2) }) }),
      '/products.csv': () => ({ type: 'text/csv', body: 'sku,price,ignored\nA,100,x\nB,105,y\n' }),
      '/products.xml': () => ({
        type: 'application/xml',
        body: '<catalog><product sku="A"><price>100</price></product><product sku="B"><price>105</price></product></catalog>',
      }),
      '/search': (req, body) => ({ type: 'application/json', body: JSON.stringify([{ sku: `${req.method}:${body}` }]) }),
      '/flaky.json': () => (remoteFails ? { status: 500, type: 'text/plain', body: 'down' } : { type: 'application/json', body: '[{"sku":"fresh"}]' }),
      '/broken.json': () => ({ type: 'application/json', body: '{"items": [' }),
      '/error': () => ({ status: 503, type: 'text/plain', body: 'maintenance' }),
    });
    closedPort = await freePort();
    const remotePort = new URL(remote.origin).port;
    // The system starts every service, and storage-library needs an object store to start; the storage
    // worker places the files motion-design sources name in the asset library.
    s3Dir = await mkdtemp(join(tmpdir(), 'asset-sources-e2e-'));
    s3 = await startEmbeddedS3({ port: 0, directory: s3Dir });
    system = await startE2eSystem('asrc', {
      workers: ['storage-worker'],
      env: { S3_ENDPOINT: s3.endpoint, OUTBOUND_ALLOWLIST: `127.0.0.1:${remotePort},127.0.0.1:${closedPort}` },
    });
    http = httpClient(system.baseUrl);
    const a = admin(http);
    const orgId = await a.createOrg({ name: 'Asset Retail', isRetailer: true });
    accountA = await a.createAccount(orgId, 'Sources A');
    accountB = await a.createAccount(orgId, 'Sources B');
    const otherOrg = await a.createOrg({ name: 'Other Retail', isRetailer: true });
    foreignAccount = await a.createAccount(otherOrg, 'Foreign');
    fullKey = (await a.createKey({ orgId, permissions: ['*'] })).apiKey;
    viewKey = (await a.createKey({ orgId, permissions: ['AssetSources_View'] })).apiKey;
    otherKey = (await a.createKey({ orgId, permissions: ['Campaigns_List', 'MediaPlan_Edit'] })).apiKey;
  });

  afterAll(async () => {
    await remote?.close();
    expect(await system?.stop()).toEqual([0, 0]);
    await s3?.close();
    if (s3Dir) await rm(s3Dir, { recursive: true, force: true });
  });

  describe('inline sources, detail and data', () => {
    it('creates an inline source and shows its detail with the interface field names', async () => {
      const id = await createInline(inlineBody({ assetSourceName: 'Detail me', reportingColumn: 'brand' }));
      const detail = await call('GET', `${base()}/${id}`);
      expect(detail.status).toBe(200);
      expect(detail.body).toMatchObject({
        assetSourceId: String(id),
        assetSourceName: 'Detail me',
        assetSourceType: 'inline',
        assetSourceColumns: ['sku', 'category', 'brand', 'price', 'weight'],
        assetKeyColumn: 'sku',
        assetGroupColumn: 'category',
        rotationWeightColumn: 'weight',
        reportingColumn: 'brand',
        assetVariantColumn: null,
        rowCount: 5,
      });
    });

    it('reads the data a page at a time, following next to the end and prev back, "" at the ends', async () => {
      const id = await createInline();
      const first = await call<Json>('GET', `${base()}/${id}/data?offset=0&limit=2`);
      expect(first.body).toMatchObject({ assetSourceId: String(id), data: PRODUCTS.slice(0, 2), prev: '' });
      expect(first.body.next).toBe(`${system.baseUrl}${base()}/${id}/data?offset=2&limit=2`);
      const forward = await follow<Row>(`${base()}/${id}/data?offset=0&limit=2`, 'data');
      expect(forward.items).toEqual(PRODUCTS);
      expect(forward.pages.map((p) => (p.data as Row[]).length)).toEqual([2, 2, 1]);
      expect(forward.pages.at(-1)?.next).toBe('');
      const backward = await follow<Row>(`${base()}/${id}/data?offset=4&limit=2`, 'data', 'prev');
      expect(backward.items.map((r) => r.sku)).toEqual(['E', 'C', 'D', 'A', 'B']);
    });

    it('answers a page past the end with next "" and prev at the last page with items, not another empty page', async () => {
      const id = await createInline();
      const past = await call<Json>('GET', `${base()}/${id}/data?offset=10&limit=2`);
      expect(past.body).toMatchObject({ data: [], next: '', prev: `${system.baseUrl}${base()}/${id}/data?offset=4&limit=2` });
      expect((await call<Json>('GET', past.body.prev as string)).body).toMatchObject({ data: PRODUCTS.slice(4) });
    });

    it('lists the account sources, paging to the end with "" at the ends', async () => {
      const ids = [await createInline(inlineBody({ assetSourceName: 'L1' }), accountB), await createInline(inlineBody({ assetSourceName: 'L2' }), accountB)];
      ids.push(await createInline(inlineBody({ assetSourceName: 'L3' }), accountB));
      const listed = await follow<{ assetSourceId: number; assetSourceName: string }>(`${base(accountB)}?limit=2`, 'assetSources');
      expect(listed.items.filter((s) => ids.includes(s.assetSourceId)).map((s) => s.assetSourceName)).toEqual(['L1', 'L2', 'L3']);
      expect(listed.pages[0]).toMatchObject({ previous: '' });
      expect(listed.pages.at(-1)).toMatchObject({ next: '' });
      expect(listed.items.every((s) => typeof s.assetSourceId === 'number')).toBe(true);
    });

    it.each([
      ['a row key outside columnNames', { data: [{ sku: 'A', colour: 'red' }] }, '/data/0/colour', 'UNKNOWN_COLUMN'],
      ['a key column that is not a column', { assetKeyColumn: 'id' }, '/assetKeyColumn', 'UNKNOWN_COLUMN'],
      ['a variant column that is not a column', { assetVariantColumn: 'size' }, '/assetVariantColumn', 'UNKNOWN_COLUMN'],
      ['a group column that is not a column', { assetGroupColumn: 'aisle' }, '/assetGroupColumn', 'UNKNOWN_COLUMN'],
      ['a reporting column that is not a column', { reportingColumn: 'report' }, '/reportingColumn', 'UNKNOWN_COLUMN'],
      ['a rotation-weight column that is not a column', { rotationWeightColumn: 'w' }, '/rotationWeightColumn', 'UNKNOWN_COLUMN'],
      ['a non-numeric rotation weight', { data: [{ sku: 'A', weight: 'heavy' }] }, '/data/0/weight', 'NOT_NUMERIC'],
      ['a column named twice', { columnNames: ['sku', 'sku'], assetGroupColumn: null, rotationWeightColumn: null, data: [] }, '/columnNames/1', 'DUPLICATE'],
      ['a missing name', { assetSourceName: undefined }, '/assetSourceName', 'REQUIRED'],
      ['an unknown member', { colour: 'red' }, '/colour', 'UNKNOWN_FIELD'],
      ['a content type outside its values', { contentType: 'yaml' }, '/contentType', 'NOT_ALLOWED'],
    ])('refuses %s with 400 naming it, storing nothing', async (_name, change, pointer, code) => {
      const before = (await call<{ assetSources: unknown[] }>('GET', `${base(accountB)}?limit=100`)).body.assetSources.length;
      const result = await call('POST', `${base(accountB)}/inline`, inlineBody(change));
      expectProblem(result, 400, 'VALIDATION_FAILED');
      expect(result.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ pointer, code })]));
      expect((await call<{ assetSources: unknown[] }>('GET', `${base(accountB)}?limit=100`)).body.assetSources).toHaveLength(before);
    });

    it('answers the paths the interface writes with a trailing slash (list, add and delete a label)', async () => {
      // Straight fetch: the conformance check matches documented paths, which carry no trailing slash.
      const raw = (method: string, path: string, json?: unknown) =>
        fetch(`${system.baseUrl}${path}`, {
          method,
          headers: { authorization: `Bearer ${fullKey}`, 'content-type': 'application/json' },
          body: json === undefined ? undefined : JSON.stringify(json),
        });
      const id = await createInline();
      const listed = await raw('GET', `${base()}/?limit=100`);
      expect(listed.status).toBe(200);
      const plain = await call<{ assetSources: unknown[] }>('GET', `${base()}?limit=100`);
      expect(((await listed.json()) as { assetSources: unknown[] }).assetSources).toEqual(plain.body.assetSources);
      expect((await raw('POST', `${base()}/${id}/labels/`, { label: 'slash' })).status).toBe(201);
      expect((await raw('DELETE', `${base()}/${id}/labels/`, { label: 'slash' })).status).toBe(200);
    });

    it('refuses a limit above 100 and a malformed id', async () => {
      expectProblem(await call('GET', `${base()}?limit=101`), 400, 'VALIDATION_FAILED');
      expectProblem(await call('GET', `${base()}/1e3`), 400, 'VALIDATION_FAILED');
    });

    it('PUT replaces everything; PATCH changes only what it names, null clearing a column', async () => {
      const id = await createInline();
      const put = await call(
        'PUT',
        `${base()}/inline/${id}`,
        inlineBody({
          assetSourceName: 'Put',
          columnNames: ['sku', 'label'],
          assetGroupColumn: null,
          rotationWeightColumn: null,
          data: [{ sku: 'Z', label: 'z' }],
        }),
      );
      expect(put).toMatchObject({ status: 200, body: { id, msg: expect.any(String) } });
      expect(await rows(id)).toEqual([{ sku: 'Z', label: 'z' }]);

      const patched = await call('PATCH', `${base()}/inline/${id}`, { assetSourceName: 'Patched', reportingColumn: 'label' });
      expect(patched.status).toBe(200);
      expect((await call('GET', `${base()}/${id}`)).body).toMatchObject({
        assetSourceName: 'Patched',
        reportingColumn: 'label',
        assetKeyColumn: 'sku',
        assetSourceColumns: ['sku', 'label'],
      });
      expect(await rows(id)).toEqual([{ sku: 'Z', label: 'z' }]);
      expect((await call('PATCH', `${base()}/inline/${id}`, { reportingColumn: null })).status).toBe(200);
      expect((await call('GET', `${base()}/${id}`)).body).toMatchObject({ reportingColumn: null, assetSourceName: 'Patched' });

      const dropping = await call('PATCH', `${base()}/inline/${id}`, { columnNames: ['sku'] });
      expectProblem(dropping, 400, 'VALIDATION_FAILED');
      expect(dropping.body.errors).toEqual([expect.objectContaining({ pointer: '/columnNames', code: 'UNKNOWN_COLUMN' })]);
      const badPut = await call('PUT', `${base()}/inline/${id}`, inlineBody({ data: [{ sku: 'A', weight: 'x' }] }));
      expect(badPut.body.errors).toEqual([expect.objectContaining({ pointer: '/data/0/weight', code: 'NOT_NUMERIC' })]);
      expect(await rows(id)).toEqual([{ sku: 'Z', label: 'z' }]);
    });

    it('needs AssetSources_View to read and AssetSources_Edit to change (403 naming it)', async () => {
      const id = await createInline();
      expect((await call('GET', `${base()}/${id}`, undefined, viewKey)).status).toBe(200);
      expect((await call('GET', `${base()}/${id}/data`, undefined, viewKey)).status).toBe(200);
      for (const [method, path, body] of [
        ['POST', `${base()}/inline`, inlineBody()],
        ['PUT', `${base()}/inline/${id}`, inlineBody()],
        ['PATCH', `${base()}/inline/${id}`, { assetSourceName: 'x' }],
        ['POST', `${base()}/remote`, { assetSourceName: 'r', url: 'https://example.com/x.json', columnNames: ['sku'], contentType: 'json' }],
        ['POST', `${base()}/${id}/labels`, { label: 'x' }],
        [
          'POST',
          `${base()}/${id}/recommendation`,
          {
            updateFrequency: 1,
            recommendationConfig: { type: 'content', maxRecommendations: 1, recommendationMap: [{ assetSourceColumn: 'sku', dataType: 'string' }] },
          },
        ],
      ] as const) {
        const denied = await call(method, path, body, viewKey);
        expectProblem(denied, 403, 'PERMISSION_DENIED');
        expect(denied.body.requiredPermission).toBe('AssetSources_Edit');
      }
      for (const path of [base(), `${base()}/${id}`, `${base()}/${id}/data`, `${base()}/${id}/labels`]) {
        const denied = await call('GET', path, undefined, otherKey);
        expectProblem(denied, 403, 'PERMISSION_DENIED');
        expect(denied.body.requiredPermission).toBe('AssetSources_View');
      }
    });

    it("answers 404 for another account's source and for an account outside the key", async () => {
      const id = await createInline(inlineBody(), accountB);
      for (const [method, path, body] of [
        ['GET', `${base()}/${id}`, undefined],
        ['GET', `${base()}/${id}/data`, undefined],
        ['PUT', `${base()}/inline/${id}`, inlineBody()],
        ['PATCH', `${base()}/inline/${id}`, { assetSourceName: 'mine now' }],
        ['GET', `${base()}/${id}/labels`, undefined],
        ['POST', `${base()}/${id}/labels`, { label: 'x' }],
      ] as const)
        expectProblem(await call(method, path, body), 404, 'ASSET_SOURCE_NOT_FOUND');
      expectProblem(await call('GET', `${base(foreignAccount)}`), 404, 'ACCOUNT_NOT_FOUND');
      expect((await call('GET', `${base(accountB)}/${id}`)).body.assetSourceName).toBe('Products');
    });
  });

  describe('labels', () => {
    it('adds idempotently, lists paginated, deletes with 200 and no body, 404 for a missing label', async () => {
      const id = await createInline();
      const path = `${base()}/${id}/labels`;
      expect(await call('POST', path, { label: 'spring' })).toMatchObject({ status: 201, body: { msg: expect.any(String) } });
      expect((await call('POST', path, { label: 'spring' })).status).toBe(200);
      for (const label of ['autumn', 'sale', 'winter']) expect((await call('POST', path, { label })).status).toBe(201);
      const listed = await follow<string>(`${path}?limit=3`, 'labels');
      expect(listed.items).toEqual(['autumn', 'sale', 'spring', 'winter']);
      expect(listed.pages.map((p) => [p.previous === '', p.next === ''])).toEqual([
        [true, false],
        [false, true],
      ]);
      const removed = await call('DELETE', path, { label: 'sale' });
      expect(removed.status).toBe(200);
      expect(removed.text).toBe('');
      expectProblem(await call('DELETE', path, { label: 'sale' }), 404, 'LABEL_NOT_FOUND');
      expect((await call<{ labels: string[] }>('GET', path)).body.labels).toEqual(['autumn', 'spring', 'winter']);
      const blank = await call('POST', path, { label: '   ' });
      expectProblem(blank, 400, 'VALIDATION_FAILED');
      expect(blank.body.errors).toEqual([expect.objectContaining({ pointer: '/label' })]);
    });
  });

  describe('remote sources', () => {
    const remoteBody = (path: string, overrides: Json = {}) => ({
      assetSourceName: `Remote ${path}`,
      url: `${remote.origin}${path}`,
      columnNames: ['sku', 'price'],
      assetKeyColumn: 'sku',
      contentType: 'json',
      cacheTime: 60,
      ...overrides,
    });
    const createRemote = async (body: Json) => {
      const created = await call<{ id: number }>('POST', `${base()}/remote`, body);
      expect(created.status).toBe(201);
      return created.body.id;
    };
    const fetchesOf = (path: string) => remote.seen.filter((line) => line.includes(` ${path}`)).length;

    it.each([
      [
        'json',
        '/products.json',
        [
          { sku: 'A', price: 100 },
          { sku: 'B', price: 105 },
        ],
      ],
      [
        'csv',
        '/products.csv',
        [
          { sku: 'A', price: '100' },
          { sku: 'B', price: '105' },
        ],
      ],
      [
        'xml',
        '/products.xml',
        [
          { sku: 'A', price: '100' },
          { sku: 'B', price: '105' },
        ],
      ],
    ])('fetches and parses %s on data read, and serves the cached copy while fresh', async (contentType, path, expected) => {
      const id = await createRemote(remoteBody(path, { contentType }));
      const before = fetchesOf(path);
      const read = await call<Json>('GET', `${base()}/${id}/data`);
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ assetSourceType: 'remote', data: expected, rowCount: 2, remote: { url: `${remote.origin}${path}`, cacheTime: 60 } });
      expect((await call<Json>('GET', `${base()}/${id}/data`)).body.data).toEqual(expected);
      expect(fetchesOf(path) - before).toBe(1);
    });

    it('sends additionalParams as the query of a GET and the form body of a POST', async () => {
      const get = await createRemote(remoteBody('/search', { additionalParams: 'q=shoes&n=2', cacheTime: 0 }));
      await call('GET', `${base()}/${get}/data`);
      expect(remote.seen).toContain('GET /search?q=shoes&n=2');
      const post = await createRemote(remoteBody('/search', { additionalParams: 'q=hats', httpMethod: 'POST', cacheTime: 0 }));
      expect((await call<Json>('GET', `${base()}/${post}/data`)).body.data).toEqual([{ sku: 'POST:q=hats' }]);
    });

    it('refetches every read with cacheTime 0; a failing remote then answers 502 naming the status', async () => {
      const id = await createRemote(remoteBody('/flaky.json', { cacheTime: 0 }));
      remoteFails = false;
      expect((await call<Json>('GET', `${base()}/${id}/data`)).body.data).toEqual([{ sku: 'fresh' }]);
      remoteFails = true;
      const failed = await call('GET', `${base()}/${id}/data`);
      expectProblem(failed, 502, 'REMOTE_SOURCE_BAD_STATUS');
      expect(failed.body.detail).toMatch(/HTTP 500/);
      remoteFails = false;
    });

    it('serves a fresh cached copy even while the remote fails', async () => {
      const id = await createRemote(remoteBody('/flaky.json', { cacheTime: 600 }));
      remoteFails = false;
      expect((await call<Json>('GET', `${base()}/${id}/data`)).body.data).toEqual([{ sku: 'fresh' }]);
      remoteFails = true;
      expect((await call<Json>('GET', `${base()}/${id}/data`)).body.data).toEqual([{ sku: 'fresh' }]);
      remoteFails = false;
    });

    it.each([
      ['unreachable', 502, 'REMOTE_SOURCE_UNREACHABLE', () => `http://127.0.0.1:${closedPort}/gone.json`, /OUTBOUND_CONNECTION_FAILED|connection/],
      ['answering an error', 502, 'REMOTE_SOURCE_BAD_STATUS', () => `${remote.origin}/error`, /HTTP 503/],
      ['malformed', 424, 'REMOTE_SOURCE_MALFORMED', () => `${remote.origin}/broken.json`, /not valid JSON/],
      ['on a refused address', 424, 'REMOTE_SOURCE_REFUSED', () => 'http://127.0.0.1:1/private.json', /public addresses/],
    ])('answers a remote %s with %i %s naming the cause', async (_name, status, code, url, cause) => {
      const id = await createRemote(remoteBody('/x', { url: url(), cacheTime: 0 }));
      const failed = await call('GET', `${base()}/${id}/data`);
      expectProblem(failed, status, code);
      expect(`${String(failed.body.detail)} ${String((failed.body as Json).cause ?? '')}`).toMatch(cause);
    });

    it.each([
      ['a URL that is not http(s)', { url: 'ftp://example.com/feed.csv' }, '/url', 'INVALID_FORMAT'],
      ['a method other than GET or POST', { httpMethod: 'PUT' }, '/httpMethod', 'NOT_ALLOWED'],
      ['a cacheTime above a week', { cacheTime: 604_801 }, '/cacheTime', 'OUT_OF_RANGE'],
      ['a missing contentType', { contentType: undefined }, '/contentType', 'REQUIRED'],
      ['a key column that is not a column', { assetKeyColumn: 'id' }, '/assetKeyColumn', 'UNKNOWN_COLUMN'],
    ])('refuses a remote source with %s (400 naming it)', async (_name, change, pointer, code) => {
      const result = await call('POST', `${base()}/remote`, remoteBody('/products.json', change));
      expectProblem(result, 400, 'VALIDATION_FAILED');
      expect(result.body.errors).toEqual([expect.objectContaining({ pointer, code })]);
    });

    it('replaces a remote source with PUT (the cached copy dropped) and refuses bad settings', async () => {
      const id = await createRemote(remoteBody('/products.json'));
      await call('GET', `${base()}/${id}/data`);
      const put = await call('PUT', `${base()}/remote/${id}`, remoteBody('/products.csv', { contentType: 'csv' }));
      expect(put.status).toBe(200);
      expect((await call<Json>('GET', `${base()}/${id}/data`)).body.data).toEqual([
        { sku: 'A', price: '100' },
        { sku: 'B', price: '105' },
      ]);
      const bad = await call('POST', `${base()}/remote`, remoteBody('/x', { url: 'ftp://example.com/x', httpMethod: 'DELETE', assetKeyColumn: 'id' }));
      expectProblem(bad, 400, 'VALIDATION_FAILED');
      expect((bad.body.errors ?? []).map((e) => e.pointer)).toEqual(expect.arrayContaining(['/httpMethod']));
      const badColumn = await call('PUT', `${base()}/remote/${id}`, remoteBody('/x', { assetKeyColumn: 'id' }));
      expect(badColumn.body.errors).toEqual([expect.objectContaining({ pointer: '/assetKeyColumn', code: 'UNKNOWN_COLUMN' })]);
      const inline = await createInline();
      expectProblem(await call('PUT', `${base()}/remote/${inline}`, remoteBody('/x')), 409, 'ASSET_SOURCE_KIND_MISMATCH');
    });
  });

  describe('recommendation sources', () => {
    const contentConfig = {
      type: 'content',
      maxRecommendations: 2,
      recommendationMap: [
        { assetSourceColumn: 'category', dataType: 'string', priority: 3 },
        { assetSourceColumn: 'brand', dataType: 'string', priority: 2 },
        { assetSourceColumn: 'price', dataType: 'numeric', acceptedRange: 10 },
      ],
    };
    const recommendationsOf = async (id: number) => {
      const data = await rows(id);
      const result: Record<string, string[]> = {};
      for (const row of data) (result[row.itemKey as string] ??= []).push(row.recommendedItemKey as string);
      return result;
    };

    it('computes content recommendations from the source rows, as worked out by hand', async () => {
      const source = await createInline();
      const created = await call<{ id: number }>('POST', `${base()}/${source}/recommendation`, { updateFrequency: 24, recommendationConfig: contentConfig });
      expect(created.status).toBe(201);
      // category +3 when equal, brand +2, price +1 within 10: A-C 5, A-B 4, A-D 3, B-C 3, C-D 2, B-D 1; E shares nothing.
      expect(await recommendationsOf(created.body.id)).toEqual({ A: ['C', 'B'], B: ['A', 'C'], C: ['A', 'B'], D: ['A', 'C'] });
      const detail = await call('GET', `${base()}/${created.body.id}`);
      expect(detail.body).toMatchObject({
        assetSourceType: 'recommendation',
        assetSourceColumns: ['itemKey', 'recommendedItemKey', 'rank', 'score'],
        assetKeyColumn: 'itemKey',
        recommendation: { sourceAssetSourceId: source, updateFrequency: 24, status: 'computed', recommendationConfig: contentConfig },
      });
      expect((await rows(created.body.id))[0]).toEqual({ itemKey: 'A', recommendedItemKey: 'C', rank: 1, score: 5 });
    });

    it('recomputes when the source changes, and refuses a source change that drops a mapped column (409)', async () => {
      const source = await createInline();
      const rec = (await call<{ id: number }>('POST', `${base()}/${source}/recommendation`, { updateFrequency: 24, recommendationConfig: contentConfig })).body
        .id;
      const changed = PRODUCTS.map((p) => (p.sku === 'E' ? { ...p, category: 'shoes' } : p));
      expect((await call('PATCH', `${base()}/inline/${source}`, { data: changed })).status).toBe(200);
      expect((await recommendationsOf(rec)).E).toEqual(['A', 'B']);
      const refused = await call('PUT', `${base()}/inline/${source}`, inlineBody({ columnNames: ['sku', 'category', 'weight'], data: [] }));
      expectProblem(refused, 409, 'ASSET_SOURCE_IN_USE');
      expect(refused.body.detail).toContain(String(rec));
      const put = await call('PUT', `${base()}/${source}/recommendation/${rec}`, {
        updateFrequency: 12,
        recommendationConfig: { ...contentConfig, maxRecommendations: 1 },
      });
      expect(put.status).toBe(200);
      expect((await recommendationsOf(rec)).A).toEqual(['C']);
      expectProblem(
        await call('PUT', `${base()}/${rec}/recommendation/${rec}`, { updateFrequency: 1, recommendationConfig: contentConfig }),
        404,
        'ASSET_SOURCE_NOT_FOUND',
      );
    });

    it.each([
      ['cookieGroup on content', { ...contentConfig, cookieGroup: 'web' }, '/recommendationConfig/cookieGroup', 'NOT_ALLOWED'],
      ['a map on collaborative', { ...contentConfig, type: 'collaborative', cookieGroup: 'web' }, '/recommendationConfig/recommendationMap', 'NOT_ALLOWED'],
      ['collaborative without cookieGroup', { type: 'collaborative', maxRecommendations: 3 }, '/recommendationConfig/cookieGroup', 'REQUIRED'],
      ['content without a map', { type: 'content', maxRecommendations: 3 }, '/recommendationConfig/recommendationMap', 'REQUIRED'],
      [
        'priority on a numeric column',
        { ...contentConfig, recommendationMap: [{ assetSourceColumn: 'price', dataType: 'numeric', priority: 2 }] },
        '/recommendationConfig/recommendationMap/0/priority',
        'NOT_ALLOWED',
      ],
      [
        'acceptedRange on a string column',
        { ...contentConfig, recommendationMap: [{ assetSourceColumn: 'brand', dataType: 'string', acceptedRange: 2 }] },
        '/recommendationConfig/recommendationMap/0/acceptedRange',
        'NOT_ALLOWED',
      ],
      [
        'a column the source lacks',
        { ...contentConfig, recommendationMap: [{ assetSourceColumn: 'colour', dataType: 'string' }] },
        '/recommendationConfig/recommendationMap/0/assetSourceColumn',
        'UNKNOWN_COLUMN',
      ],
      [
        'priority above 10',
        { ...contentConfig, recommendationMap: [{ assetSourceColumn: 'brand', dataType: 'string', priority: 11 }] },
        '/recommendationConfig/recommendationMap/0/priority',
        'OUT_OF_RANGE',
      ],
      ['a type outside its values', { ...contentConfig, type: 'popular' }, '/recommendationConfig/type', 'NOT_ALLOWED'],
      ['maxRecommendations of 0', { ...contentConfig, maxRecommendations: 0 }, '/recommendationConfig/maxRecommendations', 'OUT_OF_RANGE'],
    ])('refuses %s with 400 naming it', async (_name, recommendationConfig, pointer, code) => {
      const source = await createInline();
      const result = await call('POST', `${base()}/${source}/recommendation`, { updateFrequency: 24, recommendationConfig });
      expectProblem(result, 400, 'VALIDATION_FAILED');
      expect(result.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ pointer, code })]));
    });

    it('refuses a source without an asset key column (409)', async () => {
      const source = await createInline(inlineBody({ assetKeyColumn: null }));
      expectProblem(
        await call('POST', `${base()}/${source}/recommendation`, { updateFrequency: 24, recommendationConfig: contentConfig }),
        409,
        'ASSET_SOURCE_HAS_NO_KEY',
      );
    });

    it('collaborative: empty and said so until events exist, then item-item co-occurrence', async () => {
      const source = await createInline();
      const rec = (
        await call<{ id: number }>('POST', `${base()}/${source}/recommendation`, {
          updateFrequency: 24,
          recommendationConfig: { type: 'collaborative', maxRecommendations: 3, cookieGroup: `web-${Date.now()}` },
        })
      ).body.id;
      expect(await rows(rec)).toEqual([]);
      expect((await call('GET', `${base()}/${rec}`)).body).toMatchObject({
        recommendation: { status: 'awaiting-events', statusDetail: expect.stringContaining('No interaction events') },
      });
      const event = (cookieId: string, itemKey: string) => call('POST', `${base()}/${rec}/recommendation/events`, { cookieId, itemKey, eventType: 'view' });
      for (const [cookie, item] of [
        ['c1', 'A'],
        ['c1', 'B'],
        ['c2', 'A'],
        ['c2', 'B'],
        ['c2', 'C'],
        ['c3', 'C'],
        ['c3', 'D'],
      ])
        expect((await event(cookie, item)).status).toBe(201);
      // A-B seen together by c1 and c2 (2), A-C and B-C by c2 (1), C-D by c3 (1).
      expect(await recommendationsOf(rec)).toEqual({ A: ['B', 'C'], B: ['A', 'C'], C: ['A', 'B', 'D'], D: ['C'] });
      expect((await call('GET', `${base()}/${rec}`)).body).toMatchObject({ recommendation: { status: 'computed' } });
      const content = (await call<{ id: number }>('POST', `${base()}/${source}/recommendation`, { updateFrequency: 24, recommendationConfig: contentConfig }))
        .body.id;
      expectProblem(
        await call('POST', `${base()}/${content}/recommendation/events`, { cookieId: 'c1', itemKey: 'A', eventType: 'view' }),
        409,
        'RECOMMENDATION_TAKES_NO_EVENTS',
      );
      const blank = await call('POST', `${base()}/${rec}/recommendation/events`, { cookieId: 'c1', itemKey: '', eventType: 'view' });
      expectProblem(blank, 400, 'VALIDATION_FAILED');
    });
  });

  describe('motion-design sources', () => {
    /** Uploads a file into the account's asset library through the gateway and waits for the storage worker to place it. */
    const uploadToLibrary = async (account: number, folder: string, name: string) => {
      const form = new FormData();
      if (folder) form.append('path', folder);
      form.append('file', new Blob([Buffer.from(`${account}:${folder}/${name}`)]), name);
      const response = await fetch(`${system.baseUrl}/v2/accounts/${account}/asset-library`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fullKey}` },
        body: form,
      });
      expect(response.status).toBe(200);
      const { queueId } = (await response.json()) as { queueId: string };
      const deadline = Date.now() + 60_000;
      for (;;) {
        const queue = await call<{ status: string; message: string }>('GET', `/v2/queues/${queueId}/status`);
        expect(queue.status).toBe(200);
        if (queue.body.status === 'Failed') throw new Error(`upload of ${folder}/${name} failed: ${queue.body.message}`);
        if (queue.body.status === 'Completed') return;
        if (Date.now() > deadline) throw new Error(`upload of ${folder}/${name} still ${queue.body.status}`);
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
    };

    beforeAll(async () => {
      await Promise.all([
        uploadToLibrary(accountA, 'motion', 'intro.mp4'),
        uploadToLibrary(accountA, 'motion', 'logo.png'),
        uploadToLibrary(accountA, '', 'outro.webm'),
        uploadToLibrary(accountB, 'motion', 'intro.mp4'),
        uploadToLibrary(accountB, 'motion', 'logo.png'),
        uploadToLibrary(accountB, 'motion', 'theirs.png'),
      ]);
    });

    const createCampaign = async (account = accountA) => {
      const created = await call<{ campaignId: string | number }>('POST', `/v2/accounts/${account}/campaigns`, {
        campaignName: 'Motion campaign',
        defaultURL: 'https://shop.example.com/motion',
        assetMap: [],
        decisionMap: [],
        decisionGraph: { defaultCreativeMaster: 'cm-default', segments: [] },
        ad: { adId: 'ad-motion' },
      });
      expect(created.status).toBe(201);
      return String(created.body.campaignId);
    };
    const fillBody = (campaignId: string, overrides: Json = {}) => ({
      campaignId,
      destinationAssetSourceName: 'Motion',
      assetSourceMap: [
        { assetId: 'motion/intro.mp4', assetSourceColumn: 'introVideo' },
        { assetId: 'motion/logo.png', assetSourceColumn: 'logo' },
      ],
      ...overrides,
    });

    it('creates (0) and then fills a motion-design source from the campaign assets', async () => {
      const campaignId = await createCampaign();
      const created = await call<{ destinationAssetSourceId: number }>('PUT', `${base()}/0/motion-design`, fillBody(campaignId));
      expect(created.status).toBe(201);
      const id = created.body.destinationAssetSourceId;
      expect((await call('GET', `${base()}/${id}/data`)).body).toMatchObject({
        assetSourceType: 'motion-design',
        assetSourceColumns: ['introVideo', 'logo'],
        data: [{ introVideo: 'motion/intro.mp4', logo: 'motion/logo.png' }],
      });
      const filled = await call(
        'PUT',
        `${base()}/${id}/motion-design`,
        fillBody(campaignId, { assetSourceMap: [{ assetId: 'outro.webm', assetSourceColumn: 'clip' }] }),
      );
      expect(filled).toMatchObject({ status: 200, body: { destinationAssetSourceId: id } });
      expect(await rows(id)).toEqual([{ clip: 'outro.webm' }]);
    });

    it("refuses each path that is not a file of the account's library (400 naming it) and stores nothing; once uploaded, the same fill succeeds", async () => {
      const campaignId = await createCampaign();
      const body = fillBody(campaignId, {
        destinationAssetSourceName: 'Motion with missing assets',
        assetSourceMap: [
          { assetId: 'motion/intro.mp4', assetSourceColumn: 'introVideo' },
          { assetId: 'motion/late.png', assetSourceColumn: 'still' },
          { assetId: 'motion/theirs.png', assetSourceColumn: 'theirs' },
        ],
      });
      const sourcesBefore = (await follow<Json>(`${base()}?limit=100`, 'assetSources')).items;
      const missing = await call('PUT', `${base()}/0/motion-design`, body);
      expectProblem(missing, 400, 'VALIDATION_FAILED');
      // A file of another account (motion/theirs.png is accountB's) is not in this account's library.
      expect(missing.body.errors).toEqual([
        expect.objectContaining({ pointer: '/assetSourceMap/1/assetId', code: 'ASSET_NOT_FOUND', detail: expect.stringContaining('motion/late.png') }),
        expect.objectContaining({ pointer: '/assetSourceMap/2/assetId', code: 'ASSET_NOT_FOUND', detail: expect.stringContaining('motion/theirs.png') }),
      ]);
      expect((await follow<Json>(`${base()}?limit=100`, 'assetSources')).items).toEqual(sourcesBefore);

      // A motion-design source keeps its row when a refill names a missing path.
      const id = (await call<{ destinationAssetSourceId: number }>('PUT', `${base()}/0/motion-design`, fillBody(campaignId))).body.destinationAssetSourceId;
      expectProblem(await call('PUT', `${base()}/${id}/motion-design`, body), 400, 'VALIDATION_FAILED');
      expect(await rows(id)).toEqual([{ introVideo: 'motion/intro.mp4', logo: 'motion/logo.png' }]);

      await Promise.all([uploadToLibrary(accountA, 'motion', 'late.png'), uploadToLibrary(accountA, 'motion', 'theirs.png')]);
      expect(await call('PUT', `${base()}/${id}/motion-design`, body)).toMatchObject({ status: 200, body: { destinationAssetSourceId: id } });
      expect(await rows(id)).toEqual([{ introVideo: 'motion/intro.mp4', still: 'motion/late.png', theirs: 'motion/theirs.png' }]);
    });

    it('refuses an unknown campaign (404), a path breaking the library rules (400), another kind (409) and another tenant (404)', async () => {
      expect((await call('PUT', `${base()}/0/motion-design`, fillBody('999999999'))).status).toBe(404);
      const campaignId = await createCampaign();
      const traversal = await call(
        'PUT',
        `${base()}/0/motion-design`,
        fillBody(campaignId, { assetSourceMap: [{ assetId: 'motion/../secret.png', assetSourceColumn: 'a' }] }),
      );
      expectProblem(traversal, 400, 'VALIDATION_FAILED');
      expect(traversal.body.errors).toEqual([
        expect.objectContaining({ pointer: '/assetSourceMap/0/assetId', code: 'PATH_TRAVERSAL', detail: expect.stringContaining('Rule 3') }),
      ]);
      const inline = await createInline();
      expectProblem(await call('PUT', `${base()}/${inline}/motion-design`, fillBody(campaignId)), 409, 'ASSET_SOURCE_KIND_MISMATCH');
      const theirs = (await call<{ destinationAssetSourceId: number }>('PUT', `${base(accountB)}/0/motion-design`, fillBody(await createCampaign(accountB))))
        .body.destinationAssetSourceId;
      expectProblem(await call('PUT', `${base()}/${theirs}/motion-design`, fillBody(campaignId)), 404, 'ASSET_SOURCE_NOT_FOUND');
      expect((await call('PUT', `${base()}/0/motion-design`, fillBody(campaignId), viewKey)).body.requiredPermission).toBe('AssetSources_Edit');
    });
  });
});
