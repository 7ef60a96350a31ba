import { admin, E2eSystem, expectProblem, Http, httpClient, startE2eSystem } from './e2e-system';

jest.setTimeout(120_000);

type Json = Record<string, unknown>;

const ROWS = [
  { sku: 'sku-3', category: 'Shoes', subCategory: 'Running' },
  { sku: 'SKU-1', category: 'shirts', subCategory: 'Polo' },
  { sku: 'sku-2', category: 'shoes', subCategory: 'running' },
  { sku: 'sku-3', category: 'Hats', subCategory: '' },
  { sku: 'bag-9', category: 'Bags', subCategory: 'Tote' },
];

describe('retail feed settings over HTTP (gateway -> asset-sources -> MariaDB)', () => {
  let system: E2eSystem;
  let http: Http;
  let accountA: number;
  let accountB: number;
  let foreignAccount: number;
  let fullKey: string;
  let viewKey: string;
  let otherKey: string;
  let feedId: number;

  const settings = (account = accountA) => `/v2/accounts/${account}/retail-feed-settings`;
  const list = (query: string, account = accountA) => `${settings(account)}/list?${query}`;
  const call = <T = Json>(method: string, path: string, json?: unknown, key = fullKey) => http<T>(method, path, { key, json });
  const createInline = async (account: number, body: Json) => {
    const created = await call<{ id: number }>('POST', `/v2/accounts/${account}/asset-sources/inline`, {
      assetSourceName: 'Retail feed',
      contentType: 'json',
      ...body,
    });
    expect(created.status).toBe(201);
    return created.body.id;
  };

  /** Every value of a list, following `next` to the end; each page must answer 200. */
  async function follow(first: string): Promise<{ values: string[]; pages: Json[] }> {
    const values: string[] = [];
    const pages: Json[] = [];
    let url = first;
    while (url) {
      const page = await call<Json>('GET', url);
      expect(page.status).toBe(200);
      pages.push(page.body);
      values.push(...(page.body.values as string[]));
      url = page.body.next as string;
    }
    return { values, pages };
  }

  beforeAll(async () => {
    system = await startE2eSystem('rfs');
    http = httpClient(system.baseUrl);
    const a = admin(http);
    const orgId = await a.createOrg({ name: 'Feed Retail', isRetailer: true });
    accountA = await a.createAccount(orgId, 'Feed A');
    accountB = await a.createAccount(orgId, 'Feed B');
    const otherOrg = await a.createOrg({ name: 'Other Feed Retail', isRetailer: true });
    foreignAccount = await a.createAccount(otherOrg, 'Foreign');
    fullKey = (await a.createKey({ orgId, permissions: ['*'] })).apiKey;
    viewKey = (await a.createKey({ orgId, permissions: ['AssetSources_View'] })).apiKey;
    otherKey = (await a.createKey({ orgId, permissions: ['Campaigns_List'] })).apiKey;
    feedId = await createInline(accountA, { columnNames: ['sku', 'category', 'subCategory'], assetKeyColumn: 'sku', data: ROWS });
  });

  afterAll(async () => {
    expect(await system?.stop()).toEqual([0, 0]);
  });

  it('answers 404 RETAIL_FEED_NOT_SET, for the setting and the list, until a source is designated', async () => {
    expectProblem(await call('GET', settings(accountB)), 404, 'RETAIL_FEED_NOT_SET');
    expectProblem(await call('GET', list('fields=product', accountB)), 404, 'RETAIL_FEED_NOT_SET');
  });

  it('designates a source idempotently, its id an integer or a digit string, and reads it back as an integer', async () => {
    for (const assetSourceId of [feedId, String(feedId)]) {
      const set = await call('PUT', settings(), { assetSourceId });
      expect(set.status).toBe(200);
      expect(set.body).toEqual({ msg: expect.any(String) });
    }
    expect(await call('GET', settings())).toMatchObject({ status: 200, body: { assetSourceId: feedId } });
  });

  it("refuses an unknown source and another account's source as 404, keeping the designation", async () => {
    const other = await createInline(accountB, { columnNames: ['sku'], data: [{ sku: 'B' }] });
    expectProblem(await call('PUT', settings(), { assetSourceId: other }), 404, 'ASSET_SOURCE_NOT_FOUND');
    expectProblem(await call('PUT', settings(), { assetSourceId: 987_654_321 }), 404, 'ASSET_SOURCE_NOT_FOUND');
    for (const assetSourceId of ['x', `0${feedId}`, `+${feedId}`]) expectProblem(await call('PUT', settings(), { assetSourceId }), 400, 'VALIDATION_FAILED');
    expect((await call('GET', settings())).body).toEqual({ assetSourceId: feedId });
  });

  it('lists each field: distinct values, alphabetical ignoring case, "" at the ends', async () => {
    expect((await call('GET', list('fields=product'))).body).toEqual({ values: ['bag-9', 'SKU-1', 'sku-2', 'sku-3'], previous: '', next: '' });
    expect((await call('GET', list('fields=category'))).body).toEqual({ values: ['Bags', 'Hats', 'shirts', 'Shoes'], previous: '', next: '' });
    expect((await call('GET', list('fields=sub-category'))).body).toEqual({ values: ['Polo', 'Running', 'Tote'], previous: '', next: '' });
  });

  it('filters by query, a case-insensitive substring', async () => {
    expect((await call('GET', list('fields=product&query=SKU'))).body).toMatchObject({ values: ['SKU-1', 'sku-2', 'sku-3'] });
    expect((await call('GET', list('fields=category&query=sh'))).body).toMatchObject({ values: ['shirts', 'Shoes'] });
    expect((await call('GET', list('fields=category&query=none'))).body).toEqual({ values: [], previous: '', next: '' });
  });

  it('pages with next and previous links that work when followed', async () => {
    const first = await call<Json>('GET', list('fields=product&query=-&limit=2'));
    expect(first.body).toMatchObject({ values: ['bag-9', 'SKU-1'], previous: '' });
    expect(first.body.next).toBe(`${system.baseUrl}${settings()}/list?fields=product&query=-&offset=2&limit=2`);
    const forward = await follow(list('fields=product&query=-&limit=2'));
    expect(forward.values).toEqual(['bag-9', 'SKU-1', 'sku-2', 'sku-3']);
    expect(forward.pages.map((p) => p.next === '')).toEqual([false, true]);
    const back = await call<Json>('GET', forward.pages[1]?.previous as string);
    expect(back.body).toMatchObject({ values: ['bag-9', 'SKU-1'], previous: '' });
    expect((await call('GET', list('fields=product&offset=10'))).body).toMatchObject({ values: [], next: '' });
    expectProblem(await call('GET', list('fields=product&limit=101')), 400, 'VALIDATION_FAILED');
  });

  it('answers an empty list for a source without the column', async () => {
    const bare = await createInline(accountB, { columnNames: ['name'], data: [{ name: 'x' }] });
    expect((await call('PUT', settings(accountB), { assetSourceId: bare })).status).toBe(200);
    for (const field of ['product', 'category', 'sub-category'])
      expect((await call('GET', list(`fields=${field}`, accountB))).body).toEqual({ values: [], previous: '', next: '' });
  });

  it.each([['fields=brand'], ['fields=Product'], [''], ['fields=']])('refuses %j, naming fields', async (query) => {
    const refused = await call('GET', list(query));
    expectProblem(refused, 400, 'VALIDATION_FAILED');
    expect(refused.body.errors).toEqual([expect.objectContaining({ parameter: 'fields' })]);
  });

  it('needs AssetSources_View to read and AssetSources_Edit to designate (403 naming it)', async () => {
    for (const path of [settings(), list('fields=product')]) {
      const denied = await call('GET', path, undefined, otherKey);
      expectProblem(denied, 403, 'PERMISSION_DENIED');
      expect(denied.body.requiredPermission).toBe('AssetSources_View');
      expect((await call('GET', path, undefined, viewKey)).status).toBe(200);
    }
    const denied = await call('PUT', settings(), { assetSourceId: feedId }, viewKey);
    expectProblem(denied, 403, 'PERMISSION_DENIED');
    expect(denied.body.requiredPermission).toBe('AssetSources_Edit');
  });

  it("answers another tenant's account as missing", async () => {
    expectProblem(await call('GET', settings(foreignAccount)), 404, 'ACCOUNT_NOT_FOUND');
    expectProblem(await call('GET', list('fields=product', foreignAccount)), 404, 'ACCOUNT_NOT_FOUND');
    expectProblem(await call('PUT', settings(foreignAccount), { assetSourceId: feedId }), 404, 'ACCOUNT_NOT_FOUND');
  });
});
