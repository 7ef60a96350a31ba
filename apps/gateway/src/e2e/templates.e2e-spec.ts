import type { paths } from '@contracts/api';
import { admin, apiClient, E2eSystem, exchange, expectProblem, Http, httpClient, JsonBody, startE2eSystem } from './e2e-system';

jest.setTimeout(120_000);

type SearchPage = paths['/v2/accounts/{accountId}/retail-campaigns/retail-templates']['post']['responses'][200]['content']['application/json'];
type Filters = JsonBody<'searchRetailTemplates'>;
type CustomTemplate = JsonBody<'createRetailTemplate'>;

const customTemplate = (templateName: string): CustomTemplate => ({
  templateName,
  retailerId: 777,
  inventoryType: 'onsite',
  adFormat: 'Display Banner',
  sourceOfProductInformation: 'Hybrid',
  productSelectionMethod: 'Fixed Product Selection',
  creativeStyle: ['Static Banner'],
  category: ['Garden'],
  templateType: ['Custom'],
  layouts: [
    {
      dimension: '300x250',
      backgroundColor: '#ffffff',
      logo: { x: 10, y: 10, w: 80, h: 20 },
      productImage: { x: 10, y: 40, w: 280, h: 110 },
      headline: { box: { x: 10, y: 160, w: 280, h: 24 }, color: '#111111', fontSize: 18, text: 'Grow more' },
      price: { box: { x: 10, y: 190, w: 100, h: 20 }, color: '#cc0000', fontSize: 16, text: '$4.99' },
      callToAction: { box: { x: 170, y: 210, w: 120, h: 30 }, color: '#ffffff', backgroundColor: '#2e7d32', fontSize: 14, text: 'Shop now' },
    },
  ],
});

describe('retail templates over HTTP (gateway -> templates -> MariaDB)', () => {
  let system: E2eSystem;
  let http: Http;
  let accountA: number;
  let accountB: number;
  let fullKey: string;
  let searchOnlyKey: string;
  let campaignsOnlyKey: string;

  const searchPath = (account: number) => `/v2/accounts/${account}/retail-campaigns/retail-templates`;
  const search = (body: Filters = {}, query: { offset?: number; limit?: number; include?: 'layouts' } = {}, account = accountA, key = fullKey) =>
    exchange(
      apiClient(http, { apiKey: key }).POST('/v2/accounts/{accountId}/retail-campaigns/retail-templates', {
        params: { path: { accountId: account }, query: { offset: 0, limit: 25, ...query } },
        body,
      }),
    );
  const createCustom = (body: CustomTemplate, account = accountA, key = fullKey) =>
    exchange(
      apiClient(http, { apiKey: key }).POST('/v2/accounts/{accountId}/retail-campaigns/retail-templates/custom', {
        params: { path: { accountId: account } },
        body,
      }),
    );
  const bookmark = (templateIdx: number, on: boolean, account = accountA) => {
    const client = apiClient(http, { apiKey: fullKey });
    const params = { params: { path: { accountId: account, templateIdx } } };
    return exchange(
      on
        ? client.PUT('/v2/accounts/{accountId}/retail-campaigns/retail-templates/{templateIdx}/bookmark', params)
        : client.DELETE('/v2/accounts/{accountId}/retail-campaigns/retail-templates/{templateIdx}/bookmark', params),
    );
  };
  const update = (templateIdx: number, body: CustomTemplate, account = accountA, key = fullKey) =>
    exchange(
      apiClient(http, { apiKey: key }).PUT('/v2/accounts/{accountId}/retail-campaigns/retail-templates/{templateIdx}', {
        params: { path: { accountId: account, templateIdx } },
        body,
      }),
    );
  const remove = (templateIdx: number, account = accountA) =>
    exchange(
      apiClient(http, { apiKey: fullKey }).DELETE('/v2/accounts/{accountId}/retail-campaigns/retail-templates/{templateIdx}', {
        params: { path: { accountId: account, templateIdx } },
      }),
    );

  /** Every template of a search, following the next links to the end. */
  async function allPages(body: Filters, limit: number, account = accountA): Promise<SearchPage['templates']> {
    const first = await search(body, { limit }, account);
    expect(first.status).toBe(200);
    const items = [...first.body.templates];
    let next = first.body.next;
    while (next) {
      const page = await http<SearchPage>('POST', next, { key: fullKey, json: body });
      expect(page.status).toBe(200);
      items.push(...page.body.templates);
      next = page.body.next;
    }
    return items;
  }

  beforeAll(async () => {
    system = await startE2eSystem('tp');
    http = httpClient(system.baseUrl);
    const a = admin(http);
    const orgId = await a.createOrg({ name: 'Template Retail', isRetailer: true });
    accountA = await a.createAccount(orgId, 'Templates A');
    accountB = await a.createAccount(orgId, 'Templates B');
    fullKey = (await a.createKey({ orgId, permissions: ['*'] })).apiKey;
    searchOnlyKey = (await a.createKey({ orgId, permissions: ['Templates_View'] })).apiKey;
    // The permissions the interface names gate only their own operations: Campaigns_List is not enough to search.
    campaignsOnlyKey = (await a.createKey({ orgId, permissions: ['Campaigns_List'] })).apiKey;
  });

  afterAll(async () => {
    expect(await system?.stop()).toEqual([0, 0]);
  });

  it('is ready once the templates backend answers', async () => {
    const ready = await http('GET', '/readyz');
    expect(ready.status).toBe(200);
  });

  it('returns the seeded catalog in templateIdx order with count, links and a thumbnail URL, without layouts', async () => {
    const page = await search({}, { limit: 5 });
    expect(page.status).toBe(200);
    expect(page.body.count).toBeGreaterThanOrEqual(30);
    expect(page.body.templates).toHaveLength(5);
    expect(page.body.previous).toBeNull();
    expect(page.body.next).toBe(`${system.baseUrl}${searchPath(accountA)}?offset=5&limit=5`);
    const idxs = page.body.templates.map((t) => t.templateIdx);
    expect(idxs).toEqual([...idxs].sort((x, y) => x - y));
    const [first] = page.body.templates;
    expect(first).toMatchObject({ ownership: 'System', isBookmarked: false });
    expect(first).not.toHaveProperty('layouts');
    expect(first.thumbnailUrl).toMatch(new RegExp(`^${system.baseUrl}/files/templates/[0-9a-f]{64}\\.png$`));
  });

  it('serves a thumbnail without a key, cached for good under its content hash, and answers a revalidation with 304', async () => {
    const [first] = (await search({}, { limit: 1 })).body.templates;
    const served = await fetch(first.thumbnailUrl);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const etag = served.headers.get('etag');
    expect(etag).toBe(`"${/([0-9a-f]{64})\.png$/.exec(first.thumbnailUrl)?.[1]}"`);
    const png = Buffer.from(await served.arrayBuffer());
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(Number(served.headers.get('content-length'))).toBe(png.length);
    const again = await fetch(first.thumbnailUrl, { headers: { 'if-none-match': etag ?? '' } });
    expect(again.status).toBe(304);
    expect((await fetch(`${system.baseUrl}/files/templates/${'0'.repeat(64)}.png`)).status).toBe(404);
    expect((await fetch(`${system.baseUrl}/files/templates/not-a-hash.png`)).status).toBe(404);
  });

  it('carries layouts only with include=layouts, and refuses any other include', async () => {
    const bare = (await search({}, { limit: 3 })).body.templates;
    const full = await search({}, { limit: 3, include: 'layouts' });
    expect(full.status).toBe(200);
    expect(full.body.templates.map((t) => t.templateIdx)).toEqual(bare.map((t) => t.templateIdx));
    for (const template of full.body.templates) expect(template.layouts?.map((l) => l.dimension)).toEqual(template.dimensions);
    expect(full.body.next).toBe(`${system.baseUrl}${searchPath(accountA)}?include=layouts&offset=3&limit=3`);
    const refused = await http('POST', `${searchPath(accountA)}?include=everything`, { key: fullKey, json: {} });
    expectProblem(refused, 400, 'VALIDATION_FAILED');
    expect(refused.body.errors).toEqual([expect.objectContaining({ parameter: 'include', code: 'NOT_ALLOWED' })]);
  });

  it('answers a page of 25 in at most 20 KB', async () => {
    const page = await search({}, { limit: 25 });
    expect(page.body.templates).toHaveLength(25);
    expect(Buffer.byteLength(page.text)).toBeLessThanOrEqual(20_000);
  });

  it('pages to the end through the next links, each template once', async () => {
    const all = await allPages({}, 7);
    const first = await search({}, { limit: 100 });
    expect(all.map((t) => t.templateIdx)).toEqual(first.body.templates.map((t) => t.templateIdx));
    expect(all).toHaveLength(first.body.count);
  });

  it('applies filters: enums, any-of arrays, case-insensitive name substring, combined with AND', async () => {
    const all = (await search({}, { limit: 100 })).body.templates;
    const onsiteVideo = await allPages({ inventoryType: 'onsite', creativeStyle: ['Video', 'REC'] }, 3);
    const expected = all.filter((t) => t.inventoryType === 'onsite' && t.creativeStyle.some((s) => s === 'Video' || s === 'REC'));
    expect(expected.length).toBeGreaterThan(0);
    expect(onsiteVideo.map((t) => t.templateIdx)).toEqual(expected.map((t) => t.templateIdx));
    const byName = (await search({ campaignName: 'PETPLANET' }, { limit: 100 })).body.templates;
    expect(byName.length).toBeGreaterThan(0);
    expect(byName.every((t) => t.templateName.includes('PetPlanet'))).toBe(true);
    const byRetailer = (await search({ retailerId: 103, templateType: ['Geo Feed', 'Carousel'] }, { limit: 100 })).body;
    expect(byRetailer.templates.map((t) => t.templateIdx)).toEqual(
      all.filter((t) => t.retailerId === 103 && t.templateType.some((x) => x === 'Geo Feed' || x === 'Carousel')).map((t) => t.templateIdx),
    );
    expect(byRetailer.count).toBe(byRetailer.templates.length);
  });

  it.each([
    ['ownership', { ownership: 'Mine' }, '/ownership'],
    ['inventoryType', { inventoryType: 'print' }, '/inventoryType'],
    ['sourceOfProductInformation', { sourceOfProductInformation: 'Magic' }, '/sourceOfProductInformation'],
    ['productSelectionMethod', { productSelectionMethod: 'Random' }, '/productSelectionMethod'],
    ['creativeStyle', { creativeStyle: ['Video', 'Hologram'] }, '/creativeStyle/1'],
    ['templateType', { templateType: ['Nope'] }, '/templateType/0'],
  ])('refuses a %s outside its values with 400 naming it', async (_field, body, pointer) => {
    const result = await http('POST', searchPath(accountA), { key: fullKey, json: body });
    expectProblem(result, 400, 'VALIDATION_FAILED');
    expect(result.body.errors).toEqual([expect.objectContaining({ pointer, code: 'NOT_ALLOWED' })]);
  });

  it('refuses an unknown filter, a wrong type and a limit above the cap', async () => {
    const unknown = await http('POST', searchPath(accountA), { key: fullKey, json: { color: 'red' } });
    expect(unknown.body.errors).toEqual([expect.objectContaining({ pointer: '/color', code: 'UNKNOWN_FIELD' })]);
    const wrongType = await http('POST', searchPath(accountA), { key: fullKey, json: { isBookmarked: 'yes' } });
    expect(wrongType.body.errors).toEqual([expect.objectContaining({ pointer: '/isBookmarked', code: 'INVALID_TYPE' })]);
    expectProblem(await http('POST', `${searchPath(accountA)}?limit=101`, { key: fullKey, json: {} }), 400, 'VALIDATION_FAILED');
  });

  it("keeps an account's custom template from every other account", async () => {
    const created = await createCustom(customTemplate('Garden Party Custom'));
    expect(created.status).toBe(201);
    const templateIdx = created.body.templateIdx;
    const mine = (await search({ ownership: 'Custom' })).body;
    expect(mine.templates.map((t) => t.templateIdx)).toEqual([templateIdx]);
    expect(mine.templates[0]).toMatchObject({ templateName: 'Garden Party Custom', ownership: 'Custom', dimensions: ['300x250'] });
    const theirs = await search({ campaignName: 'garden party' }, {}, accountB);
    expect(theirs.body).toMatchObject({ count: 0, templates: [], next: null, previous: null });
    expect((await search({}, { limit: 100 }, accountB)).body.templates.map((t) => t.templateIdx)).not.toContain(templateIdx);
    expectProblem(await bookmark(templateIdx, true, accountB), 404, 'TEMPLATE_NOT_FOUND');
    expectProblem(await remove(templateIdx, accountB), 404, 'TEMPLATE_NOT_FOUND');
    expect((await remove(templateIdx)).status).toBe(200);
    expect((await search({ ownership: 'Custom' })).body.count).toBe(0);
  });

  it('replaces a custom template of the account (fields, tags, dimensions, thumbnail); not a System one, not another account', async () => {
    const { templateIdx } = (await createCustom(customTemplate('Before Update'))).body;
    const [before] = (await search({ campaignName: 'Before Update' })).body.templates;
    const changed = customTemplate('After Update');
    changed.category = ['Pets'];
    changed.layouts = [
      {
        ...changed.layouts[0],
        dimension: '320x50',
        backgroundColor: '#123456',
        logo: { x: 2, y: 2, w: 40, h: 20 },
        productImage: { x: 44, y: 2, w: 40, h: 40 },
        headline: { ...changed.layouts[0].headline, box: { x: 90, y: 2, w: 100, h: 20 } },
        price: { ...changed.layouts[0].price, box: { x: 90, y: 24, w: 60, h: 20 } },
        callToAction: { ...changed.layouts[0].callToAction, box: { x: 200, y: 5, w: 100, h: 30 } },
      },
    ];
    expect(await update(templateIdx, changed)).toMatchObject({ status: 200, body: { message: 'Template updated.' } });
    const [after] = (await search({ category: ['Pets'], ownership: 'Custom' })).body.templates;
    expect(after).toMatchObject({ templateIdx, templateName: 'After Update', category: ['Pets'], dimensions: ['320x50'] });
    expect(after.thumbnailUrl).not.toBe(before.thumbnailUrl);
    // A Custom template's thumbnail is reachable by its URL alone, as a System one is.
    expect((await fetch(after.thumbnailUrl)).status).toBe(200);
    expect((await search({ campaignName: 'Before Update' })).body.count).toBe(0);

    const [systemTemplate] = (await search({ ownership: 'System' }, { limit: 1 })).body.templates;
    expectProblem(await update(systemTemplate.templateIdx, changed), 409, 'TEMPLATE_NOT_EDITABLE');
    expectProblem(await update(templateIdx, customTemplate('Hijack'), accountB), 404, 'TEMPLATE_NOT_FOUND');
    const denied = await update(templateIdx, customTemplate('Denied'), accountA, searchOnlyKey);
    expectProblem(denied, 403, 'PERMISSION_DENIED');
    const invalid = customTemplate('Invalid');
    invalid.layouts[0].logo = { x: 250, y: 0, w: 100, h: 20 };
    expectProblem(await update(templateIdx, invalid), 400, 'VALIDATION_FAILED');
    expect((await search({ ownership: 'Custom', category: ['Pets'] })).body.templates.map((t) => t.templateName)).toEqual(['After Update']);
    expect((await remove(templateIdx)).status).toBe(200);
  });

  it('bookmarks per account and filters on them', async () => {
    const [a, b] = (await search({}, { limit: 2 })).body.templates;
    expect((await bookmark(a.templateIdx, true)).status).toBe(200);
    expect((await bookmark(b.templateIdx, true)).status).toBe(200);
    expect((await bookmark(b.templateIdx, false)).status).toBe(200);
    const marked = (await search({ isBookmarked: true })).body;
    expect(marked.templates.map((t) => [t.templateIdx, t.isBookmarked])).toEqual([[a.templateIdx, true]]);
    expect((await search({ isBookmarked: true }, {}, accountB)).body.count).toBe(0);
  });

  it('refuses to delete a System template, and needs Templates_Edit to change anything', async () => {
    const [system] = (await search({ ownership: 'System' }, { limit: 1 })).body.templates;
    expectProblem(await remove(system.templateIdx), 409, 'TEMPLATE_NOT_DELETABLE');
    expect((await search({}, { limit: 1 }, accountA, searchOnlyKey)).status).toBe(200);
    const denied = await createCustom(customTemplate('Not allowed'), accountA, searchOnlyKey);
    expectProblem(denied, 403, 'PERMISSION_DENIED');
    expect(denied.body.requiredPermission).toBe('Templates_Edit');
    const searchDenied = await search({}, { limit: 1 }, accountA, campaignsOnlyKey);
    expectProblem(searchDenied, 403, 'PERMISSION_DENIED');
    expect(searchDenied.body.requiredPermission).toBe('Templates_View');
  });

  it('refuses a custom template whose layout leaves its canvas', async () => {
    const body = customTemplate('Broken');
    body.layouts[0].logo = { x: 250, y: 0, w: 100, h: 20 };
    const result = await createCustom(body);
    expectProblem(result, 400, 'VALIDATION_FAILED');
    expect(result.body.errors).toEqual([expect.objectContaining({ pointer: '/layouts/0/logo', code: 'OUT_OF_RANGE' })]);
  });
});
