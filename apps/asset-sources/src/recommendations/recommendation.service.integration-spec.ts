import { openAssetSourcesTestBed, rejectionOf, type AssetSourcesTestBed } from '../asset-sources.test-support';
import { NO_SPECIAL_COLUMNS, type RecommendationConfig, type SourceRow } from '../sources/asset-source.model';

jest.setTimeout(60_000);

const CATALOGUE: SourceRow[] = [
  { sku: 'A', category: 'shoes', brand: 'nike', price: 100 },
  { sku: 'B', category: 'shoes', brand: 'adidas', price: 105 },
  { sku: 'C', category: 'shoes', brand: 'nike', price: 200 },
  { sku: 'D', category: 'shirts', brand: 'nike', price: 98 },
  { sku: 'E', category: 'hats', brand: 'puma', price: 500 },
];
const CONTENT: RecommendationConfig = {
  type: 'content',
  maxRecommendations: 2,
  recommendationMap: [
    { assetSourceColumn: 'category', dataType: 'string', priority: 3 },
    { assetSourceColumn: 'brand', dataType: 'string', priority: 2 },
    { assetSourceColumn: 'price', dataType: 'numeric', acceptedRange: 10 },
  ],
};

describe('RecommendationService (real MariaDB)', () => {
  let bed: AssetSourcesTestBed;
  let clock = new Date('2026-06-01T00:00:00Z');
  let nextAccount = 10_000;
  const freshAccount = () => nextAccount++;

  const catalogue = (account: number, rows: SourceRow[] = CATALOGUE, keyColumn: string | null = 'sku') =>
    bed.assetSources.createInline(account, {
      definition: {
        assetSourceName: 'Catalogue',
        columnNames: ['sku', 'category', 'brand', 'price'],
        columns: { ...NO_SPECIAL_COLUMNS, assetKeyColumn: keyColumn },
        contentType: 'json',
      },
      rowsJson: JSON.stringify(rows),
    });
  const recommended = async (account: number, id: number) => {
    const rows = JSON.parse((await bed.assetSources.readData(account, id, { limit: 100 })).rowsJson) as SourceRow[];
    const byItem: Record<string, string[]> = {};
    for (const row of rows) (byItem[row.itemKey as string] ??= []).push(row.recommendedItemKey as string);
    return byItem;
  };

  beforeAll(async () => {
    bed = await openAssetSourcesTestBed('arec', { now: () => clock });
  });

  afterAll(async () => {
    await bed?.close();
  });

  it('stores content recommendations worked out by hand as the source rows {itemKey, recommendedItemKey, rank, score}', async () => {
    const account = freshAccount();
    const source = await catalogue(account);
    const id = await bed.recommendations.create(account, source, { updateFrequency: 24, config: CONTENT });
    // category +3, brand +2, price within 10 +1: A-C 5, A-B 4, A-D 3, B-C 3, C-D 2, B-D 1; E shares nothing.
    expect(await recommended(account, id)).toEqual({ A: ['C', 'B'], B: ['A', 'C'], C: ['A', 'B'], D: ['A', 'C'] });
    const data = await bed.assetSources.readData(account, id, { limit: 2 });
    expect(JSON.parse(data.rowsJson)).toEqual([
      { itemKey: 'A', recommendedItemKey: 'C', rank: 1, score: 5 },
      { itemKey: 'A', recommendedItemKey: 'B', rank: 2, score: 4 },
    ]);
    expect(data.source).toMatchObject({
      assetSourceType: 'recommendation',
      assetSourceName: 'Catalogue recommendations',
      columns: { assetKeyColumn: 'itemKey' },
      recommendation: { sourceAssetSourceId: source, updateFrequency: 24, computedAt: clock },
    });
    expect(await bed.recommendations.status(data.source)).toMatchObject({ status: 'computed' });
  });

  it('follows changes of the source and refuses one that drops the key or a mapped column (409 naming the user)', async () => {
    const account = freshAccount();
    const source = await catalogue(account);
    const id = await bed.recommendations.create(account, source, { updateFrequency: 24, config: CONTENT });
    await bed.assetSources.patchInline(account, source, { present: new Set(['data']), columns: {}, rowsJson: JSON.stringify(CATALOGUE.slice(0, 2)) });
    expect(await recommended(account, id)).toEqual({ A: ['B'], B: ['A'] });
    const dropped = await rejectionOf(
      bed.assetSources.patchInline(account, source, {
        present: new Set(['columnNames', 'data']),
        columnNames: ['sku', 'category', 'price'],
        columns: {},
        rowsJson: JSON.stringify([{ sku: 'A', category: 'shoes', price: 1 }]),
      }),
    );
    expect(dropped).toMatchObject({ status: 409, code: 'ASSET_SOURCE_IN_USE' });
    expect(String(dropped.detail)).toContain(String(id));
    expect(await rejectionOf(bed.assetSources.patchInline(account, source, { present: new Set(['assetKeyColumn']), columns: {} }))).toMatchObject({
      status: 409,
      code: 'ASSET_SOURCE_IN_USE',
    });
    expect((await bed.assetSources.get(account, source)).columns.assetKeyColumn).toBe('sku');
  });

  it('recomputes a source every updateFrequency hours, not before', async () => {
    const account = freshAccount();
    const source = await catalogue(account);
    const id = await bed.recommendations.create(account, source, { updateFrequency: 2, config: CONTENT });
    const computedAt = (await bed.assetSources.get(account, id)).recommendation?.computedAt;
    await bed.db.knex('asset_source_rows').where({ asset_source_id: id }).delete();
    clock = new Date(clock.getTime() + 60 * 60 * 1000);
    await bed.recommendations.recomputeDue();
    expect((await bed.assetSources.get(account, id)).recommendation?.computedAt).toEqual(computedAt);
    clock = new Date(clock.getTime() + 60 * 60 * 1000);
    expect(await bed.recommendations.recomputeDue()).toBeGreaterThanOrEqual(1);
    expect((await bed.assetSources.get(account, id)).recommendation?.computedAt).toEqual(clock);
    expect(await recommended(account, id)).toEqual({ A: ['C', 'B'], B: ['A', 'C'], C: ['A', 'B'], D: ['A', 'C'] });
  });

  it('collaborative and hybrid are empty, and say so, until interaction events exist; then rank by co-occurrence', async () => {
    const account = freshAccount();
    const source = await catalogue(account);
    const collaborative = await bed.recommendations.create(account, source, {
      updateFrequency: 24,
      config: { type: 'collaborative', maxRecommendations: 5, cookieGroup: 'web' },
    });
    const hybrid = await bed.recommendations.create(account, source, {
      updateFrequency: 24,
      config: { ...CONTENT, type: 'hybrid', cookieGroup: 'web', maxRecommendations: 5 },
    });
    expect(await recommended(account, collaborative)).toEqual({});
    expect(await recommended(account, hybrid)).toEqual({});
    expect(await bed.recommendations.status(await bed.assetSources.get(account, hybrid))).toMatchObject({ status: 'awaiting-events' });
    for (const [cookieId, itemKey] of [
      ['c1', 'E'],
      ['c1', 'A'],
      ['c2', 'E'],
      ['c2', 'A'],
      ['c2', 'A'],
    ])
      await bed.recommendations.recordEvent(account, collaborative, { cookieId, itemKey, eventType: 'view' });
    // Two cookies saw E and A (a cookie counts once, however many events); hybrid adds that to the content score.
    expect(await recommended(account, collaborative)).toEqual({ A: ['E'], E: ['A'] });
    const hybridRows = JSON.parse((await bed.assetSources.readData(account, hybrid, { limit: 100 })).rowsJson) as SourceRow[];
    expect(hybridRows.filter((r) => r.itemKey === 'A')).toEqual([
      { itemKey: 'A', recommendedItemKey: 'C', rank: 1, score: 5 },
      { itemKey: 'A', recommendedItemKey: 'B', rank: 2, score: 4 },
      { itemKey: 'A', recommendedItemKey: 'D', rank: 3, score: 3 },
      { itemKey: 'A', recommendedItemKey: 'E', rank: 4, score: 2 },
    ]);
    expect(await bed.recommendations.status(await bed.assetSources.get(account, hybrid))).toMatchObject({ status: 'computed' });
    expect(await recommended(freshAccount(), collaborative).catch((e: { status: number }) => e.status)).toBe(404);
  });

  it.each([
    ['cookieGroup on content', { ...CONTENT, cookieGroup: 'web' }, '/recommendationConfig/cookieGroup', 'NOT_ALLOWED'],
    ['no cookieGroup on hybrid', { ...CONTENT, type: 'hybrid' }, '/recommendationConfig/cookieGroup', 'REQUIRED'],
    ['a map on collaborative', { ...CONTENT, type: 'collaborative', cookieGroup: 'web' }, '/recommendationConfig/recommendationMap', 'NOT_ALLOWED'],
    ['no map on content', { type: 'content', maxRecommendations: 3 }, '/recommendationConfig/recommendationMap', 'REQUIRED'],
    [
      'an empty map on hybrid',
      { type: 'hybrid', cookieGroup: 'web', maxRecommendations: 3, recommendationMap: [] },
      '/recommendationConfig/recommendationMap',
      'REQUIRED',
    ],
    [
      'priority on numeric',
      { ...CONTENT, recommendationMap: [{ assetSourceColumn: 'price', dataType: 'numeric', priority: 1 }] },
      '/recommendationConfig/recommendationMap/0/priority',
      'NOT_ALLOWED',
    ],
    [
      'priority 0',
      { ...CONTENT, recommendationMap: [{ assetSourceColumn: 'brand', dataType: 'string', priority: 0 }] },
      '/recommendationConfig/recommendationMap/0/priority',
      'OUT_OF_RANGE',
    ],
    [
      'priority 11',
      { ...CONTENT, recommendationMap: [{ assetSourceColumn: 'brand', dataType: 'string', priority: 11 }] },
      '/recommendationConfig/recommendationMap/0/priority',
      'OUT_OF_RANGE',
    ],
    [
      'acceptedRange on string',
      { ...CONTENT, recommendationMap: [{ assetSourceColumn: 'brand', dataType: 'string', acceptedRange: 1 }] },
      '/recommendationConfig/recommendationMap/0/acceptedRange',
      'NOT_ALLOWED',
    ],
    [
      'a negative acceptedRange',
      { ...CONTENT, recommendationMap: [{ assetSourceColumn: 'price', dataType: 'numeric', acceptedRange: -1 }] },
      '/recommendationConfig/recommendationMap/0/acceptedRange',
      'OUT_OF_RANGE',
    ],
    [
      'an unknown column',
      { ...CONTENT, recommendationMap: [{ assetSourceColumn: 'colour', dataType: 'string' }] },
      '/recommendationConfig/recommendationMap/0/assetSourceColumn',
      'UNKNOWN_COLUMN',
    ],
    [
      'a column mapped twice',
      {
        ...CONTENT,
        recommendationMap: [
          { assetSourceColumn: 'brand', dataType: 'string' },
          { assetSourceColumn: 'brand', dataType: 'string' },
        ],
      },
      '/recommendationConfig/recommendationMap/1/assetSourceColumn',
      'DUPLICATE',
    ],
    [
      'a dataType outside its values',
      { ...CONTENT, recommendationMap: [{ assetSourceColumn: 'brand', dataType: 'date' }] },
      '/recommendationConfig/recommendationMap/0/dataType',
      'NOT_ALLOWED',
    ],
    ['a type outside its values', { ...CONTENT, type: 'popular' }, '/recommendationConfig/type', 'NOT_ALLOWED'],
    ['maxRecommendations 0', { ...CONTENT, maxRecommendations: 0 }, '/recommendationConfig/maxRecommendations', 'OUT_OF_RANGE'],
    ['maxRecommendations 101', { ...CONTENT, maxRecommendations: 101 }, '/recommendationConfig/maxRecommendations', 'OUT_OF_RANGE'],
  ])('refuses %s and stores nothing', async (_name, config, pointer, code) => {
    const account = freshAccount();
    const source = await catalogue(account);
    const error = await rejectionOf(bed.recommendations.create(account, source, { updateFrequency: 24, config: config as RecommendationConfig }));
    expect(error).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(error.errors).toEqual([expect.objectContaining({ pointer, code })]);
    expect((await bed.assetSources.list(account)).total).toBe(1);
  });

  it('refuses an updateFrequency outside 1 to 720 hours', async () => {
    const account = freshAccount();
    const source = await catalogue(account);
    for (const updateFrequency of [0, 721])
      expect(await rejectionOf(bed.recommendations.create(account, source, { updateFrequency, config: CONTENT }))).toMatchObject({
        errors: [expect.objectContaining({ pointer: '/updateFrequency', code: 'OUT_OF_RANGE' })],
      });
  });

  it('refuses a source without an asset key, a recommendation source as source, and a foreign one', async () => {
    const account = freshAccount();
    const keyless = await catalogue(account, CATALOGUE, null);
    expect(await rejectionOf(bed.recommendations.create(account, keyless, { updateFrequency: 24, config: CONTENT }))).toMatchObject({
      status: 409,
      code: 'ASSET_SOURCE_HAS_NO_KEY',
    });
    const source = await catalogue(account);
    const rec = await bed.recommendations.create(account, source, { updateFrequency: 24, config: CONTENT });
    const onRec = await rejectionOf(
      bed.recommendations.create(account, rec, {
        updateFrequency: 24,
        config: { ...CONTENT, recommendationMap: [{ assetSourceColumn: 'itemKey', dataType: 'string' }] },
      }),
    );
    expect(onRec).toMatchObject({ status: 409, code: 'ASSET_SOURCE_KIND_MISMATCH' });
    expect(await rejectionOf(bed.recommendations.create(freshAccount(), source, { updateFrequency: 24, config: CONTENT }))).toMatchObject({ status: 404 });
  });

  it('replaces the settings of a recommendation source of that source only', async () => {
    const account = freshAccount();
    const source = await catalogue(account);
    const other = await catalogue(account);
    const id = await bed.recommendations.create(account, source, { updateFrequency: 24, config: CONTENT });
    await bed.recommendations.replace(account, source, id, { updateFrequency: 6, config: { ...CONTENT, maxRecommendations: 1 } });
    expect(await recommended(account, id)).toEqual({ A: ['C'], B: ['A'], C: ['A'], D: ['A'] });
    expect((await bed.assetSources.get(account, id)).recommendation?.updateFrequency).toBe(6);
    expect(await rejectionOf(bed.recommendations.replace(account, other, id, { updateFrequency: 6, config: CONTENT }))).toMatchObject({ status: 404 });
  });

  it('refuses events for content sources and blank event members', async () => {
    const account = freshAccount();
    const source = await catalogue(account);
    const content = await bed.recommendations.create(account, source, { updateFrequency: 24, config: CONTENT });
    expect(await rejectionOf(bed.recommendations.recordEvent(account, content, { cookieId: 'c', itemKey: 'A', eventType: 'view' }))).toMatchObject({
      status: 409,
      code: 'RECOMMENDATION_TAKES_NO_EVENTS',
    });
    expect(await rejectionOf(bed.recommendations.recordEvent(account, content, { cookieId: ' ', itemKey: 'A', eventType: 'view' }))).toMatchObject({
      status: 400,
      errors: [expect.objectContaining({ pointer: '/cookieId' })],
    });
    expect(await rejectionOf(bed.recommendations.recordEvent(account, source, { cookieId: 'c', itemKey: 'A', eventType: 'view' }))).toMatchObject({
      status: 409,
      code: 'ASSET_SOURCE_KIND_MISMATCH',
    });
  });
});
