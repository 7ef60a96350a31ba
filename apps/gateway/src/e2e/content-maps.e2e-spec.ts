import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { admin, apiClient, E2eSystem, exchange, expectProblem, Http, httpClient, JsonBody, startE2eSystem } from './e2e-system';
import { httpCsvFeedBody } from './feed-fixture';

jest.setTimeout(120_000);

interface ContentItem {
  contentValue: string;
  displayValue: string | null;
  productImageUrl: string | null;
  previewUrls: { adUnitId: number; url: string | null }[];
}
interface PlacementRead {
  placementId: string;
  externalPlacementId: string | null;
  placementName: string | null;
  dimension: string | null;
  content: ContentItem[];
}
interface ContentMapRead {
  contentType: string | null;
  numOfCards: number | null;
  placementContentMap: PlacementRead[] | null;
  adGroupPlacementCreativeMap: { adGroupId: string; adGroupName: string[]; status: string[]; placementCreativeMap: PlacementRead[] }[] | null;
  next: string | null;
  previous: string | null;
}
interface SaveBody {
  contentType: string;
  dataServiceId?: number;
  adGroupPlacementCreativeMap: {
    adGroupId: string;
    adGroupName?: string;
    status?: string;
    placementCreativeMap: { placementId: string; placementName?: string; content: string[] }[];
  }[];
}

const PRODUCTS = [
  { sku: 'SKU-1', name: 'Oat milk 1 l', imageUrl: 'https://cdn.example.com/p/1.jpg', category: 'Dairy' },
  { sku: 'SKU-2', name: 'Rye bread', imageUrl: 'https://cdn.example.com/p/2.jpg', category: 'Bakery' },
  { sku: 'SKU-3', name: 'Butter', imageUrl: 'https://cdn.example.com/p/3.jpg', category: 'Dairy' },
];

describe('content maps over HTTP (gateway -> content-creative -> channels-plans and asset-sources)', () => {
  let system: E2eSystem;
  let http: Http;
  let orgId: string;
  let accountA: number;
  let accountB: number;
  let foreignAccount: number;
  let fullKey: string;
  let listKey: string;
  let editKey: string;
  let otherKey: string;
  let products: number;
  let productsOfB: number;
  /** A campaign without ad groups and its plan on a display ad server (two placements). */
  let plain: { campaign: number; plan: number; placements: string[] };
  /** The same campaign's plan on a social ad server. */
  let social: { plan: number; placements: string[] };
  let grouped: { campaign: number; plan: number; placements: string[]; adGroups: string[] };
  let sbt: { campaign: number; plan: number; placements: string[] };

  const call = async <T = Record<string, unknown>>(method: string, path: string, json?: unknown, key = fullKey) => {
    const result = await http<T>(method, path, { key, json });
    if (result.status >= 300) throw new Error(`${method} ${path}: ${result.status} ${result.text}`);
    return result.body;
  };
  const mapPath = (campaign: number, plan: number, account = accountA) =>
    `/v2/accounts/${account}/retail-campaigns/${campaign}/media-plans/${plan}/content-map`;
  const MAP = '/v2/accounts/{accountId}/retail-campaigns/{retailCampaignId}/media-plans/{mediaPlanId}/content-map' as const;
  const api = (key: string) => apiClient(http, { apiKey: key });
  /** Bodies are typed loosely: the refusal specs send what the contract does not allow. */
  const save = (campaign: number, plan: number, body: unknown, account = accountA, key = fullKey) =>
    exchange(
      api(key).POST(MAP, {
        params: { path: { accountId: account, retailCampaignId: campaign, mediaPlanId: plan } },
        body: body as JsonBody<'saveContentMap'>,
      }),
    );
  const read = (campaign: number, plan: number, query: { offset?: number; limit?: number } = {}, account = accountA, key = fullKey) =>
    exchange(api(key).GET(MAP, { params: { path: { accountId: account, retailCampaignId: campaign, mediaPlanId: plan }, query } }));
  const errorsOf = (result: { body: { errors?: Record<string, unknown>[] } }) =>
    (result.body.errors ?? []).map((e) => `${String(e.pointer)} ${String(e.code)}`);
  const single = (
    placements: { placementId: string; content: string[] }[],
    contentType = 'Product',
    dataServiceId: number | undefined = products,
  ): SaveBody => ({
    contentType,
    ...(dataServiceId === undefined ? {} : { dataServiceId }),
    adGroupPlacementCreativeMap: [{ adGroupId: '', placementCreativeMap: placements }],
  });

  const channel = async (adServerId: string) =>
    (
      await call<{ idx: number }>('POST', `/v2/org/${orgId}/retail-media-channels`, {
        name: `${adServerId} channel`,
        adServerId,
        type: adServerId === 'meta' ? 'Social' : 'Off-site',
        activationConfiguration: { tagGeneration: true, creativeGeneration: false },
      })
    ).idx;
  const campaign = async (body: Record<string, unknown>) =>
    (await call<{ retailCampaignId: number }>('POST', `/v2/accounts/${accountA}/retail-campaigns`, { campaignName: 'Mapped', ...body })).retailCampaignId;
  const plan = async (retailCampaignId: number, mediaChannelIdx: number) => {
    const { mediaPlanId } = await call<{ mediaPlanId: number }>('POST', `/v2/accounts/${accountA}/media-plans/auto`, {
      dimensions: ['300x250', '728x90'],
      retailCampaignId,
      mediaChannelIdx,
    });
    const read = await call<{ adServers: { placements: { placementId: string }[] }[] }>('GET', `/v2/accounts/${accountA}/media-plans/${mediaPlanId}`);
    return { plan: mediaPlanId, placements: read.adServers.flatMap((s) => s.placements.map((p) => p.placementId)) };
  };
  const inlineSource = async (account: number, rows: Record<string, unknown>[], columnNames = ['sku', 'name', 'imageUrl', 'category']) =>
    (
      await call<{ id: number }>('POST', `/v2/accounts/${account}/asset-sources/inline`, {
        assetSourceName: 'Products',
        columnNames,
        assetKeyColumn: 'sku',
        data: rows,
      })
    ).id;

  let displayChannel: number;
  /** The retailer's product feed on loopback, for a content map over a feed source. */
  let feedHost: Server;
  const FEED_CSV = `sku,name,imageUrl,category\n${PRODUCTS.map((p) => [p.sku, `Feed ${p.name}`, p.imageUrl, p.category].join(',')).join('\n')}\n`;

  beforeAll(async () => {
    feedHost = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/csv' }).end(FEED_CSV));
    await new Promise<void>((resolve) => feedHost.listen(0, '127.0.0.1', resolve));
    system = await startE2eSystem('cm', { env: { OUTBOUND_ALLOWLIST: `127.0.0.1:${(feedHost.address() as AddressInfo).port}` } });
    http = httpClient(system.baseUrl);
    const a = admin(http);
    orgId = await a.createOrg({ name: 'Content Retail', isRetailer: true, dimensionWhitelist: ['300x250', '728x90'] });
    accountA = await a.createAccount(orgId, 'Content A');
    accountB = await a.createAccount(orgId, 'Content B');
    const otherOrg = await a.createOrg({ name: 'Elsewhere', isRetailer: true });
    foreignAccount = await a.createAccount(otherOrg, 'Not ours');
    fullKey = (await a.createKey({ orgId, permissions: ['*'] })).apiKey;
    listKey = (await a.createKey({ orgId, permissions: ['MediaPlan_List'] })).apiKey;
    editKey = (await a.createKey({ orgId, permissions: ['MediaPlan_Edit'] })).apiKey;
    otherKey = (await a.createKey({ orgId, permissions: ['MediaPlan_View', 'Campaigns_List', 'RetailCampaigns_Edit'] })).apiKey;

    const [display, meta] = [await channel('gam'), await channel('meta')];
    displayChannel = display;
    const plainCampaign = await campaign({});
    plain = { campaign: plainCampaign, ...(await plan(plainCampaign, display)) };
    social = await plan(plainCampaign, meta);
    const groupedCampaign = await campaign({ isAdGroupCampaign: true });
    const adGroups: string[] = [];
    for (const adGroupName of ['Dairy', 'Bakery', 'Frozen'])
      adGroups.push(
        String(
          (await call<{ adGroupId: string }>('POST', `/v2/accounts/${accountA}/retail-campaigns/${groupedCampaign}/ad-groups`, { adGroupName })).adGroupId,
        ),
      );
    grouped = { campaign: groupedCampaign, adGroups, ...(await plan(groupedCampaign, display)) };
    const sbtCampaign = await campaign({ isSbt: true });
    sbt = { campaign: sbtCampaign, ...(await plan(sbtCampaign, meta)) };
    products = await inlineSource(accountA, PRODUCTS);
    productsOfB = await inlineSource(accountB, PRODUCTS);
  });

  afterAll(async () => {
    expect(await system?.stop()).toEqual([0, 0]);
    feedHost?.closeAllConnections();
    await new Promise((resolve) => feedHost?.close(resolve));
  });

  it('reads a map never saved as empty, with the map of the campaign kind', async () => {
    const fresh = await campaign({});
    const { plan: freshPlan } = await plan(fresh, await channel('cm360'));
    const result = await read(fresh, freshPlan);
    expect(result.status).toBe(200);
    expect(result.body).toEqual({
      contentType: null,
      numOfCards: null,
      placementContentMap: [],
      adGroupPlacementCreativeMap: null,
      next: null,
      previous: null,
    });
  });

  it('saves products per placement and reads them enriched from the asset source, for a campaign without ad groups', async () => {
    const [home, search] = plain.placements;
    const saved = await save(
      plain.campaign,
      plain.plan,
      single([
        { placementId: home, content: ['SKU-1', 'SKU-2'] },
        { placementId: search, content: ['SKU-3'] },
      ]),
    );
    expect(saved.status).toBe(200);
    expect(saved.body.message).toEqual(expect.any(String));
    const result = await read(plain.campaign, plain.plan);
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ contentType: 'Product', numOfCards: 2, adGroupPlacementCreativeMap: null, next: null, previous: null });
    expect(result.body.placementContentMap).toEqual([
      {
        placementId: home,
        externalPlacementId: null,
        placementName: expect.any(String),
        dimension: '300x250',
        content: [
          {
            contentValue: 'SKU-1',
            displayValue: 'Oat milk 1 l',
            productImageUrl: 'https://cdn.example.com/p/1.jpg',
            previewUrls: [{ adUnitId: Number(home), url: 'https://cdn.example.com/p/1.jpg' }],
          },
          expect.objectContaining({ contentValue: 'SKU-2', displayValue: 'Rye bread' }),
        ],
      },
      expect.objectContaining({
        placementId: search,
        dimension: '728x90',
        content: [expect.objectContaining({ contentValue: 'SKU-3', displayValue: 'Butter' })],
      }),
    ]);
  });

  it('maps products of a feed source as of an inline one: checked against and enriched from its ingested rows', async () => {
    const { port } = feedHost.address() as AddressInfo;
    const feed = await call<{ id: number; queueId: string }>(
      'POST',
      `/v2/accounts/${accountA}/asset-sources/feed/create`,
      httpCsvFeedBody(`http://127.0.0.1:${port}/products.csv`, ['sku', 'name', 'imageUrl', 'category'], { assetSourceName: 'Feed products' }),
    );
    const deadline = Date.now() + 30_000;
    for (;;) {
      const queue = await http<{ status: string; message: string }>('GET', `/v2/queues/${feed.queueId}/status`, { key: fullKey });
      if (queue.body.status === 'Completed') break;
      if (queue.body.status === 'Failed' || Date.now() > deadline) throw new Error(`feed ingestion did not complete: ${queue.text}`);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    const fresh = await campaign({});
    const { plan: feedPlan, placements } = await plan(fresh, displayChannel);

    const refused = await save(fresh, feedPlan, single([{ placementId: placements[0], content: ['SKU-1', 'SKU-9'] }], 'Product', feed.id));
    expectProblem(refused, 400, 'VALIDATION_FAILED');
    expect(errorsOf(refused)).toEqual(['/adGroupPlacementCreativeMap/0/placementCreativeMap/0/content/1 NOT_IN_ASSET_SOURCE']);

    expect((await save(fresh, feedPlan, single([{ placementId: placements[0], content: ['SKU-1', 'SKU-3'] }], 'Product', feed.id))).status).toBe(200);
    const result = await read(fresh, feedPlan);
    expect(result.body.placementContentMap?.[0].content).toEqual([
      expect.objectContaining({ contentValue: 'SKU-1', displayValue: 'Feed Oat milk 1 l', productImageUrl: 'https://cdn.example.com/p/1.jpg' }),
      expect.objectContaining({ contentValue: 'SKU-3', displayValue: 'Feed Butter' }),
    ]);
  });

  it('replaces the whole map on save and pages placements with links that work', async () => {
    const [home, search] = plain.placements;
    await save(plain.campaign, plain.plan, single([{ placementId: search, content: ['SKU-2'] }]));
    expect((await read(plain.campaign, plain.plan)).body.placementContentMap?.map((p) => p.placementId)).toEqual([search]);

    await save(
      plain.campaign,
      plain.plan,
      single(
        [
          { placementId: home, content: ['Dairy'] },
          { placementId: search, content: ['Bakery', 'Dairy'] },
        ],
        'Category',
      ),
    );
    const first = await read(plain.campaign, plain.plan, { offset: 0, limit: 1 });
    expect(first.body.placementContentMap?.map((p) => p.placementId)).toEqual([home]);
    expect(first.body).toMatchObject({ contentType: 'Category', numOfCards: 2, previous: null });
    expect(first.body.next).toBe(`${system.baseUrl}${mapPath(plain.campaign, plain.plan)}?offset=1&limit=1`);
    const second = await http<ContentMapRead>('GET', first.body.next as string, { key: fullKey });
    expect(second.body.placementContentMap?.map((p) => p.placementId)).toEqual([search]);
    expect(second.body.next).toBeNull();
    expect(second.body.previous).toBe(`${system.baseUrl}${mapPath(plain.campaign, plain.plan)}?offset=0&limit=1`);
    expectProblem(await read(plain.campaign, plain.plan, { limit: 101 }), 400, 'VALIDATION_FAILED');
  });

  it('saves per ad group for an ad-group campaign and reads adGroupPlacementCreativeMap only, paged by ad group', async () => {
    const [dairy, bakery] = grouped.adGroups;
    const [home, search] = grouped.placements;
    const saved = await save(grouped.campaign, grouped.plan, {
      contentType: 'Creatives',
      adGroupPlacementCreativeMap: [
        { adGroupId: bakery, status: 'Active', placementCreativeMap: [{ placementId: home, content: ['bread-hero'] }] },
        {
          adGroupId: dairy,
          placementCreativeMap: [
            { placementId: home, content: ['milk-hero', 'milk-alt'] },
            { placementId: search, content: ['milk-leader'] },
          ],
        },
      ],
    });
    expect(saved.status).toBe(200);
    const first = await read(grouped.campaign, grouped.plan, { limit: 1 });
    expect(first.body).toMatchObject({ contentType: 'Creatives', numOfCards: 2, placementContentMap: null, previous: null });
    expect(first.body.adGroupPlacementCreativeMap).toEqual([
      {
        adGroupId: bakery,
        adGroupName: ['Bakery'],
        status: ['Active'],
        placementCreativeMap: [
          expect.objectContaining({
            placementId: home,
            content: [{ contentValue: 'bread-hero', displayValue: null, productImageUrl: null, previewUrls: [{ adUnitId: Number(home), url: null }] }],
          }),
        ],
      },
    ]);
    const second = await http<ContentMapRead>('GET', first.body.next as string, { key: fullKey });
    expect(second.body.adGroupPlacementCreativeMap?.map((g) => [g.adGroupId, g.adGroupName, g.placementCreativeMap.map((p) => p.placementId)])).toEqual([
      [dairy, ['Dairy'], [home, search]],
    ]);
    expect(second.body.next).toBeNull();
  });

  it('allows All with empty content on the social placements of a campaign that is not SBT', async () => {
    const result = await save(
      plain.campaign,
      social.plan,
      single(
        social.placements.map((placementId) => ({ placementId, content: [] })),
        'All',
        undefined,
      ),
    );
    expect(result.status).toBe(200);
    expect((await read(plain.campaign, social.plan)).body).toMatchObject({ contentType: 'All', numOfCards: 0 });
  });

  describe('refuses, changing nothing', () => {
    const refusedWith = async (campaignId: number, planId: number, body: unknown, expected: string[]) => {
      const before = await read(campaignId, planId);
      const result = await save(campaignId, planId, body);
      expectProblem(result, 400, 'VALIDATION_FAILED');
      expect(errorsOf(result)).toEqual(expected);
      expect((await read(campaignId, planId)).body).toEqual(before.body);
      return result;
    };
    const at = (g: number, p: number) => `/adGroupPlacementCreativeMap/${g}/placementCreativeMap/${p}`;

    it('All with content', () =>
      refusedWith(plain.campaign, social.plan, single([{ placementId: social.placements[0], content: ['SKU-1'] }], 'All', undefined), [
        `${at(0, 0)}/content MUST_BE_EMPTY`,
      ]));

    it('All on placements of a display ad server', () =>
      refusedWith(plain.campaign, plain.plan, single([{ placementId: plain.placements[1], content: [] }], 'All', undefined), [
        `${at(0, 0)}/placementId CONTENT_TYPE_NOT_ALLOWED`,
      ]));

    it('All for an SBT campaign, even on a social ad server', () =>
      refusedWith(sbt.campaign, sbt.plan, single([{ placementId: sbt.placements[0], content: [] }], 'All', undefined), [
        '/contentType CONTENT_TYPE_NOT_ALLOWED',
      ]));

    it('a content type outside the list', () => refusedWith(plain.campaign, plain.plan, single([], 'Everything'), ['/contentType NOT_ALLOWED']));

    it('a placement of another media plan', () =>
      refusedWith(plain.campaign, plain.plan, single([{ placementId: grouped.placements[0], content: ['SKU-1'] }]), [
        `${at(0, 0)}/placementId PLACEMENT_NOT_IN_MEDIA_PLAN`,
      ]));

    it('an ad group of another campaign, and an ad group on a campaign without ad groups', async () => {
      const otherCampaign = await campaign({ isAdGroupCampaign: true });
      const foreignGroup = String(
        (await call<{ adGroupId: string }>('POST', `/v2/accounts/${accountA}/retail-campaigns/${otherCampaign}/ad-groups`, { adGroupName: 'Elsewhere' }))
          .adGroupId,
      );
      await refusedWith(
        grouped.campaign,
        grouped.plan,
        { contentType: 'Creatives', adGroupPlacementCreativeMap: [{ adGroupId: foreignGroup, placementCreativeMap: [] }] },
        ['/adGroupPlacementCreativeMap/0/adGroupId AD_GROUP_NOT_IN_CAMPAIGN'],
      );
      await refusedWith(
        plain.campaign,
        plain.plan,
        { contentType: 'Creatives', adGroupPlacementCreativeMap: [{ adGroupId: grouped.adGroups[0], placementCreativeMap: [] }] },
        ['/adGroupPlacementCreativeMap/0/adGroupId AD_GROUP_NOT_IN_CAMPAIGN'],
      );
    });

    it('SKUs the asset source lacks, naming each', async () => {
      const result = await refusedWith(plain.campaign, plain.plan, single([{ placementId: plain.placements[0], content: ['SKU-1', 'SKU-404', 'SKU-405'] }]), [
        `${at(0, 0)}/content/1 NOT_IN_ASSET_SOURCE`,
        `${at(0, 0)}/content/2 NOT_IN_ASSET_SOURCE`,
      ]);
      expect(result.body).toMatchObject({ detail: expect.stringContaining('"SKU-404", "SKU-405"') });
    });

    it('an asset source that does not exist, or is another account', async () => {
      await refusedWith(plain.campaign, plain.plan, single([{ placementId: plain.placements[0], content: ['SKU-1'] }], 'Product', 999_999), [
        '/dataServiceId UNKNOWN_ASSET_SOURCE',
      ]);
      await refusedWith(plain.campaign, plain.plan, single([{ placementId: plain.placements[0], content: ['SKU-1'] }], 'Product', productsOfB), [
        '/dataServiceId UNKNOWN_ASSET_SOURCE',
      ]);
    });

    it('a content type whose column the asset source lacks', () =>
      refusedWith(plain.campaign, plain.plan, single([{ placementId: plain.placements[0], content: ['Oat'] }], 'Sub-category'), [
        '/dataServiceId MISSING_COLUMN',
      ]));

    it('a duplicate placement, a malformed id, unknown members and unbounded lists', async () => {
      const [home] = plain.placements;
      await refusedWith(
        plain.campaign,
        plain.plan,
        single([
          { placementId: home, content: [] },
          { placementId: home, content: [] },
          { placementId: 'abc', content: [] },
        ]),
        [`${at(0, 1)}/placementId DUPLICATE`, `${at(0, 2)}/placementId INVALID_FORMAT`],
      );
      await refusedWith(plain.campaign, plain.plan, { ...single([]), colour: 'red' }, ['/colour UNKNOWN_FIELD']);
      await refusedWith(plain.campaign, plain.plan, single([{ placementId: home, content: Array.from({ length: 101 }, (_, i) => `SKU-${i}`) }]), [
        `${at(0, 0)}/content TOO_MANY_ITEMS`,
      ]);
      await refusedWith(plain.campaign, plain.plan, { adGroupPlacementCreativeMap: [] }, ['/contentType REQUIRED']);
    });
  });

  it('still reads a map whose asset source lost the column it was saved against, its items unenriched', async () => {
    const source = await inlineSource(accountA, PRODUCTS);
    const fresh = await campaign({});
    const { plan: freshPlan, placements } = await plan(fresh, await channel('xandr'));
    expect((await save(fresh, freshPlan, single([{ placementId: placements[0], content: ['SKU-1'] }], 'Product', source))).status).toBe(200);
    expect((await read(fresh, freshPlan)).body.placementContentMap?.[0].content[0]).toMatchObject({ displayValue: 'Oat milk 1 l' });
    const replaced = await http('PUT', `/v2/accounts/${accountA}/asset-sources/inline/${source}`, {
      key: fullKey,
      json: { assetSourceName: 'Products', columnNames: ['code', 'name'], data: [{ code: 'SKU-1', name: 'Oat milk 1 l' }] },
    });
    expect(replaced.status).toBe(200);
    const result = await read(fresh, freshPlan);
    expect(result.status).toBe(200);
    expect(result.body.placementContentMap?.[0].content).toEqual([
      { contentValue: 'SKU-1', displayValue: null, productImageUrl: null, previewUrls: [{ adUnitId: Number(placements[0]), url: null }] },
    ]);
  });

  it('answers 404 for a media plan of another campaign, a missing campaign, and another tenant', async () => {
    expectProblem(await read(plain.campaign, grouped.plan), 404, 'MEDIA_PLAN_NOT_FOUND');
    expectProblem(await save(plain.campaign, grouped.plan, single([])), 404, 'MEDIA_PLAN_NOT_FOUND');
    expectProblem(await read(9_999_999, plain.plan), 404, 'RETAIL_CAMPAIGN_NOT_FOUND');
    expectProblem(await read(plain.campaign, plain.plan, {}, accountB), 404, 'RETAIL_CAMPAIGN_NOT_FOUND');
    expectProblem(await save(plain.campaign, plain.plan, single([]), accountB), 404, 'RETAIL_CAMPAIGN_NOT_FOUND');
    expectProblem(await read(plain.campaign, plain.plan, {}, foreignAccount), 404, 'ACCOUNT_NOT_FOUND');
  });

  it('reads with MediaPlan_List and saves with MediaPlan_Edit, and with nothing else', async () => {
    expect((await read(plain.campaign, plain.plan, {}, accountA, listKey)).status).toBe(200);
    const denied = await save(plain.campaign, plain.plan, single([]), accountA, listKey);
    expectProblem(denied, 403, 'PERMISSION_DENIED');
    expect(denied.body.requiredPermission).toBe('MediaPlan_Edit');
    const readDenied = await read(plain.campaign, plain.plan, {}, accountA, editKey);
    expectProblem(readDenied, 403, 'PERMISSION_DENIED');
    expect(readDenied.body.requiredPermission).toBe('MediaPlan_List');
    expectProblem(await read(plain.campaign, plain.plan, {}, accountA, otherKey), 403, 'PERMISSION_DENIED');
    expectProblem(await save(plain.campaign, plain.plan, single([]), accountA, otherKey), 403, 'PERMISSION_DENIED');
  });

  it('saves with a MediaPlan_Edit key alone: the peers check the account, not their own permissions', async () => {
    const [home] = plain.placements;
    const result = await save(plain.campaign, plain.plan, single([{ placementId: home, content: ['SKU-3'] }]), accountA, editKey);
    expect(result.status).toBe(200);
    expect((await read(plain.campaign, plain.plan, {}, accountA, listKey)).body.placementContentMap).toEqual([
      expect.objectContaining({ placementId: home, content: [expect.objectContaining({ contentValue: 'SKU-3', displayValue: 'Butter' })] }),
    ]);
  });
});
