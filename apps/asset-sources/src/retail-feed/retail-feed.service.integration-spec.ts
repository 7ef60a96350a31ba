import { openAssetSourcesTestBed, rejectionOf, type AssetSourcesTestBed } from '../asset-sources.test-support';
import { NO_SPECIAL_COLUMNS, type SpecialColumns } from '../sources/asset-source.model';

jest.setTimeout(180_000);

const ROWS = [
  { sku: 'sku-3', category: 'Shoes', subCategory: 'Running' },
  { sku: 'SKU-1', category: 'shirts', subCategory: 'Polo' },
  { sku: 'sku-2', category: 'shoes', subCategory: 'running' },
  { sku: 'sku-3', category: 'Hats', subCategory: '' },
  { sku: 'a_b', category: 'hats', subCategory: null },
  { sku: 'a%b', category: 'Bags 50%', subCategory: 'Tote' },
  { sku: 'zz', subCategory: 'Trail' },
];

describe('RetailFeedService (real MariaDB)', () => {
  let bed: AssetSourcesTestBed;
  let nextAccount = 9100;
  const freshAccount = () => nextAccount++;
  const createSource = (account: number, columnNames: string[], rows: unknown[], columns: Partial<SpecialColumns> = {}) =>
    bed.assetSources.createInline(account, {
      definition: { assetSourceName: 'Feed', columnNames, columns: { ...NO_SPECIAL_COLUMNS, ...columns }, contentType: 'json' },
      rowsJson: JSON.stringify(rows),
    });
  const feedAccount = async (columns: Partial<SpecialColumns> = {}, rows: unknown[] = ROWS, columnNames = ['sku', 'category', 'subCategory']) => {
    const account = freshAccount();
    const id = await createSource(account, columnNames, rows, columns);
    await bed.retailFeed.set(account, id);
    return { account, id };
  };
  const all = async (account: number, field: string, query = '') => bed.retailFeed.list(account, field, query, { offset: 0, limit: 100 });

  beforeAll(async () => {
    bed = await openAssetSourcesTestBed('arf');
  });

  afterAll(async () => {
    await bed?.close();
  });

  describe('designation', () => {
    it('is not set until designated: the read and the list are 404 RETAIL_FEED_NOT_SET', async () => {
      const account = freshAccount();
      await createSource(account, ['sku'], [{ sku: 'A' }]);
      expect(await rejectionOf(bed.retailFeed.get(account))).toMatchObject({ status: 404, code: 'RETAIL_FEED_NOT_SET' });
      expect(await rejectionOf(bed.retailFeed.list(account, 'product', ''))).toMatchObject({ status: 404, code: 'RETAIL_FEED_NOT_SET' });
    });

    it('designates a source of the account, idempotently, one per account, and a later one replaces it', async () => {
      const account = freshAccount();
      const first = await createSource(account, ['sku'], [{ sku: 'A' }]);
      const second = await createSource(account, ['sku'], [{ sku: 'B' }]);
      await bed.retailFeed.set(account, first);
      await bed.retailFeed.set(account, first);
      expect(await bed.retailFeed.get(account)).toBe(first);
      expect((await all(account, 'product')).items).toEqual(['A']);
      await bed.retailFeed.set(account, second);
      expect(await bed.retailFeed.get(account)).toBe(second);
      expect((await all(account, 'product')).items).toEqual(['B']);
      const [stored] = await bed.db.execute<{ n: number }>('SELECT COUNT(*) AS n FROM retail_feed_settings WHERE account_id = ?', [account]);
      expect(Number(stored?.n)).toBe(1);
    });

    it("refuses an unknown source and another account's source as missing, keeping the designation", async () => {
      const { account, id } = await feedAccount();
      const other = freshAccount();
      const foreign = await createSource(other, ['sku'], [{ sku: 'X' }]);
      expect(await rejectionOf(bed.retailFeed.set(account, foreign))).toMatchObject({ status: 404, code: 'ASSET_SOURCE_NOT_FOUND' });
      expect(await rejectionOf(bed.retailFeed.set(account, 999_999_999))).toMatchObject({ status: 404, code: 'ASSET_SOURCE_NOT_FOUND' });
      expect(await bed.retailFeed.get(account)).toBe(id);
      expect(await rejectionOf(bed.retailFeed.get(other))).toMatchObject({ code: 'RETAIL_FEED_NOT_SET' });
    });
  });

  describe('the fields', () => {
    it('product: the distinct asset key values, alphabetical ignoring case (Unicode collation order: _ before %)', async () => {
      const { account } = await feedAccount({ assetKeyColumn: 'sku' });
      expect(await all(account, 'product')).toEqual({ items: ['a_b', 'a%b', 'SKU-1', 'sku-2', 'sku-3', 'zz'], more: false });
    });

    it('product: the asset key column when it is not sku, else the sku column', async () => {
      const keyed = await feedAccount(
        { assetKeyColumn: 'code' },
        [
          { code: 'K2', sku: 'S1' },
          { code: 'k1', sku: 'S2' },
        ],
        ['code', 'sku'],
      );
      expect((await all(keyed.account, 'product')).items).toEqual(['k1', 'K2']);
      const unkeyed = await feedAccount(
        {},
        [
          { code: 'K2', sku: 'S1' },
          { code: 'k1', sku: 'S2' },
        ],
        ['code', 'sku'],
      );
      expect((await all(unkeyed.account, 'product')).items).toEqual(['S1', 'S2']);
    });

    it('product: follows a change of the asset key column alone (sku values are kept only while there is none)', async () => {
      const codes = [
        { code: 'K2', sku: 'S1' },
        { code: 'k1', sku: 'S2' },
      ];
      const { account, id } = await feedAccount({ assetKeyColumn: 'code' }, codes, ['code', 'sku']);
      const skuValues = async () =>
        Number(
          (await bed.db.execute<{ n: number }>("SELECT COUNT(*) AS n FROM asset_source_row_values WHERE asset_source_id = ? AND field = 'sku'", [id]))[0]?.n,
        );
      expect(await skuValues()).toBe(0);
      await bed.assetSources.patchInline(account, id, { present: new Set(['assetKeyColumn']), columns: { assetKeyColumn: null } });
      expect((await all(account, 'product')).items).toEqual(['S1', 'S2']);
      await bed.assetSources.patchInline(account, id, { present: new Set(['assetKeyColumn']), columns: { assetKeyColumn: 'code' } });
      expect((await all(account, 'product')).items).toEqual(['k1', 'K2']);
      expect(await skuValues()).toBe(0);
    });

    it('category: values equal ignoring case are one value (its first spelling in binary order), a row without one adds nothing', async () => {
      const { account } = await feedAccount();
      expect(await all(account, 'category')).toEqual({ items: ['Bags 50%', 'Hats', 'shirts', 'Shoes'], more: false });
    });

    it('sub-category: reads subCategory; blank and null values are left out', async () => {
      const { account } = await feedAccount();
      expect(await all(account, 'sub-category')).toEqual({ items: ['Polo', 'Running', 'Tote', 'Trail'], more: false });
    });

    it('a source without the column answers an empty list', async () => {
      const { account } = await feedAccount({}, [{ name: 'x', sku2: 'y' }], ['name', 'sku2']);
      for (const field of ['product', 'category', 'sub-category']) expect(await all(account, field)).toEqual({ items: [], more: false });
    });

    it('refuses any other field, naming the fields parameter', async () => {
      const { account } = await feedAccount();
      for (const field of ['', 'Product', 'subCategory', 'brand'])
        expect(await rejectionOf(bed.retailFeed.list(account, field, ''))).toMatchObject({
          status: 400,
          errors: [expect.objectContaining({ parameter: 'fields', code: 'NOT_ALLOWED' })],
        });
    });
  });

  describe('query and paging', () => {
    it('filters by a case-insensitive substring, % and _ matching literally', async () => {
      const { account } = await feedAccount({ assetKeyColumn: 'sku' });
      expect((await all(account, 'product', 'SKU')).items).toEqual(['SKU-1', 'sku-2', 'sku-3']);
      expect((await all(account, 'product', '_')).items).toEqual(['a_b']);
      expect((await all(account, 'product', '%')).items).toEqual(['a%b']);
      expect((await all(account, 'category', 'HAT')).items).toEqual(['Hats']);
      expect(await all(account, 'category', 'nothing like it')).toEqual({ items: [], more: false });
      expect(await rejectionOf(bed.retailFeed.list(account, 'category', 'x'.repeat(256)))).toMatchObject({ status: 400 });
    });

    it('pages the distinct values, telling whether more follow, the query applying before the page', async () => {
      const { account } = await feedAccount({ assetKeyColumn: 'sku' });
      expect(await bed.retailFeed.list(account, 'product', '', { offset: 0, limit: 4 })).toEqual({ items: ['a_b', 'a%b', 'SKU-1', 'sku-2'], more: true });
      expect(await bed.retailFeed.list(account, 'product', '', { offset: 4, limit: 4 })).toEqual({ items: ['sku-3', 'zz'], more: false });
      expect(await bed.retailFeed.list(account, 'product', '', { offset: 8, limit: 4 })).toEqual({ items: [], more: false });
      expect(await bed.retailFeed.list(account, 'product', 'sku', { offset: 1, limit: 1 })).toEqual({ items: ['sku-2'], more: true });
      expect(await bed.retailFeed.list(account, 'product', 'sku', { offset: 2, limit: 1 })).toEqual({ items: ['sku-3'], more: false });
      expect(await bed.retailFeed.list(account, 'product', '', { offset: 0, limit: 6 })).toEqual({
        items: ['a_b', 'a%b', 'SKU-1', 'sku-2', 'sku-3', 'zz'],
        more: false,
      });
      expect(await bed.retailFeed.list(account, 'product', '')).toEqual({ items: ['a_b', 'a%b', 'SKU-1', 'sku-2', 'sku-3', 'zz'], more: false });
    });
  });

  describe('a 100,000-row source', () => {
    it('lists distinct values from the (source, column) indexes without parsing rows', async () => {
      const rows = Array.from({ length: 100_000 }, (_, i) => ({
        sku: `P${String(i).padStart(6, '0')}`,
        category: `Category ${i % 500}`,
        subCategory: `Sub ${i % 5000}`,
      }));
      const started = Date.now();
      const { account, id } = await feedAccount({}, rows);
      const stored = Date.now() - started;
      // Each page is read twice: the first read brings the index pages into the buffer pool, the second is the steady state.
      const time = async (field: string, query: string, offset: number) => {
        const at = process.hrtime.bigint();
        await bed.retailFeed.list(account, field, query, { offset, limit: 100 });
        const cold = Number(process.hrtime.bigint() - at) / 1e6;
        const again = process.hrtime.bigint();
        const page = await bed.retailFeed.list(account, field, query, { offset, limit: 100 });
        return { page, ms: `${(Number(process.hrtime.bigint() - again) / 1e6).toFixed(1)} (first read ${cold.toFixed(1)})` };
      };
      const products = await time('product', '', 0);
      expect(products.page.more).toBe(true);
      expect(products.page.items).toHaveLength(100);
      expect(products.page.items[0]).toBe('P000000');
      const deep = await time('product', '', 99_900);
      expect(deep.page).toMatchObject({ more: false });
      expect(deep.page.items).toHaveLength(100);
      expect(deep.page.items.at(-1)).toBe('P099999');
      const categories = await time('category', '', 0);
      expect(categories.page.more).toBe(true);
      expect((await bed.retailFeed.list(account, 'category', '', { offset: 400, limit: 100 })).more).toBe(false);
      expect(categories.page.items.slice(0, 3)).toEqual(['Category 0', 'Category 1', 'Category 10']);
      const subs = await time('sub-category', '', 0);
      expect(subs.page.items.slice(0, 3)).toEqual(['Sub 0', 'Sub 1', 'Sub 10']);
      const searched = await time('product', '99999', 0);
      expect(searched.page).toEqual({ items: ['P099999'], more: false });

      // The same distinct list read out of the row JSON, for comparison.
      await bed.db.execute("SELECT DISTINCT JSON_VALUE(row_json, '$.category') FROM asset_source_rows WHERE asset_source_id = ? LIMIT 1", [id]);
      const at = process.hrtime.bigint();
      await bed.db.execute("SELECT DISTINCT JSON_VALUE(row_json, '$.category') AS v FROM asset_source_rows WHERE asset_source_id = ? ORDER BY v LIMIT 100", [
        id,
      ]);
      const parsing = (Number(process.hrtime.bigint() - at) / 1e6).toFixed(1);

      const plan = await bed.db.execute<{ key: string | null; Extra: string }>(
        'EXPLAIN SELECT value FROM asset_source_row_values ' +
          "WHERE asset_source_id = ? AND generation = (SELECT row_generation FROM asset_sources WHERE asset_source_id = ?) AND field = 'sku' AND value > '' " +
          'ORDER BY value LIMIT 101',
        [id, id],
      );
      // The served generation is read first, as a constant; then the (source, generation, field, value) key is walked in order.
      expect(plan[0]?.key).toBe('PRIMARY');
      expect(plan[0]?.Extra).toMatch(/Using index/);
      for (const step of plan) expect(step.Extra).not.toMatch(/filesort|temporary/);
      const report = {
        storeRowsMs: stored,
        productFirstPageMs: products.ms,
        productLastPageMs: deep.ms,
        categoryPageMs: categories.ms,
        subCategoryPageMs: subs.ms,
        productSearchMs: searched.ms,
        categoryFromRowJsonMs: parsing,
      };
      process.stdout.write(`retail feed list, 100,000 rows: ${JSON.stringify(report)}\n`);
    });
  });
});
