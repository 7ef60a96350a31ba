import { openAssetSourcesTestBed, rejectionOf, type AssetSourcesTestBed } from '../asset-sources.test-support';
import { NO_SPECIAL_COLUMNS, type SourceDefinition, type SpecialColumns } from './asset-source.model';
import type { InlineInput } from './asset-source.service';

jest.setTimeout(60_000);

describe('AssetSourceService (real MariaDB)', () => {
  let bed: AssetSourcesTestBed;
  let nextAccount = 7000;
  const freshAccount = () => nextAccount++;

  const definition = (overrides: Partial<SourceDefinition> = {}, columns: Partial<SpecialColumns> = {}): SourceDefinition => ({
    assetSourceName: 'Products',
    columnNames: ['sku', 'name', 'weight', 'group'],
    columns: { ...NO_SPECIAL_COLUMNS, assetKeyColumn: 'sku', rotationWeightColumn: 'weight', ...columns },
    contentType: 'json',
    ...overrides,
  });
  const rows = [
    { sku: 'A1', name: 'Apple', weight: 2, group: 'fruit' },
    { sku: 'B2', name: 'Banana', weight: '1.5', group: 'fruit' },
    { sku: 'C3', name: 'Carrot', group: 'veg' },
  ];
  const inline = (overrides: Partial<SourceDefinition> = {}, data: unknown[] = rows, columns: Partial<SpecialColumns> = {}): InlineInput => ({
    definition: definition(overrides, columns),
    rowsJson: JSON.stringify(data),
  });
  const pointers = async (promise: Promise<unknown>) => {
    const error = await rejectionOf(promise);
    expect({ status: error.status, code: error.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
    return (error.errors as { pointer: string; code: string }[]).map((e) => [e.pointer, e.code]);
  };

  beforeAll(async () => {
    bed = await openAssetSourcesTestBed('asrc');
  });

  afterAll(async () => {
    await bed?.close();
  });

  describe('inline create and read', () => {
    it('stores the definition and the rows in order, read back a page at a time', async () => {
      const account = freshAccount();
      const id = await bed.assetSources.createInline(account, inline({ assetSourceName: '  Products  ' }));
      const source = await bed.assetSources.get(account, id);
      expect(source).toMatchObject({
        assetSourceId: id,
        assetSourceType: 'inline',
        assetSourceName: 'Products',
        columnNames: ['sku', 'name', 'weight', 'group'],
        columns: { assetKeyColumn: 'sku', rotationWeightColumn: 'weight', assetGroupColumn: null },
        contentType: 'json',
        rowCount: 3,
      });
      const first = await bed.assetSources.readData(account, id, { offset: 0, limit: 2 });
      expect(JSON.parse(first.rowsJson)).toEqual(rows.slice(0, 2));
      expect(first.total).toBe(3);
      expect(JSON.parse((await bed.assetSources.readData(account, id, { offset: 2, limit: 2 })).rowsJson)).toEqual(rows.slice(2));
      expect(JSON.parse((await bed.assetSources.readData(account, id, { offset: 9, limit: 2 })).rowsJson)).toEqual([]);
    });

    it('creates many sources at once without the creates deadlocking each other', async () => {
      const account = freshAccount();
      const created = await Promise.allSettled(
        Array.from({ length: 24 }, (_, i) => bed.assetSources.createInline(account, inline({ assetSourceName: `S${i}` }))),
      );
      expect(created.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
      expect((await bed.assetSources.list(account, { offset: 0, limit: 100 })).total).toBe(24);
    });

    it('lists the account sources in id order with the total, and nothing of other accounts', async () => {
      const account = freshAccount();
      const ids = [
        await bed.assetSources.createInline(account, inline({ assetSourceName: 'one' })),
        await bed.assetSources.createInline(account, inline({ assetSourceName: 'two' })),
        await bed.assetSources.createInline(account, inline({ assetSourceName: 'three' })),
      ];
      await bed.assetSources.createInline(freshAccount(), inline());
      const page = await bed.assetSources.list(account, { offset: 1, limit: 5 });
      expect(page.total).toBe(3);
      expect(page.items).toEqual([
        { assetSourceId: ids[1], assetSourceName: 'two', assetSourceType: 'inline' },
        { assetSourceId: ids[2], assetSourceName: 'three', assetSourceType: 'inline' },
      ]);
      expect((await bed.assetSources.list(account, { offset: 5, limit: 5 })).total).toBe(3);
    });

    it("answers 404 for another account's source, as for a missing one", async () => {
      const id = await bed.assetSources.createInline(freshAccount(), inline());
      const calls = [
        () => bed.assetSources.get(freshAccount(), id),
        () => bed.assetSources.readData(freshAccount(), id),
        () => bed.assetSources.get(1, 999_999_999),
      ];
      for (const call of calls) expect(await rejectionOf(call())).toMatchObject({ status: 404, code: 'ASSET_SOURCE_NOT_FOUND' });
    });

    it.each([
      ['a blank name', inline({ assetSourceName: '  ' }), [['/assetSourceName', 'REQUIRED']]],
      ['no columns', inline({ columnNames: [] }, [], { assetKeyColumn: null, rotationWeightColumn: null }), [['/columnNames', 'REQUIRED']]],
      ['a column named twice', inline({ columnNames: ['sku', 'name', 'weight', 'group', 'sku'] }), [['/columnNames/4', 'DUPLICATE']]],
      ['a key column that is not a column', inline({}, rows, { assetKeyColumn: 'id' }), [['/assetKeyColumn', 'UNKNOWN_COLUMN']]],
      ['a variant column that is not a column', inline({}, rows, { assetVariantColumn: 'size' }), [['/assetVariantColumn', 'UNKNOWN_COLUMN']]],
      ['a group column that is not a column', inline({}, rows, { assetGroupColumn: 'aisle' }), [['/assetGroupColumn', 'UNKNOWN_COLUMN']]],
      ['a reporting column that is not a column', inline({}, rows, { reportingColumn: 'report' }), [['/reportingColumn', 'UNKNOWN_COLUMN']]],
      ['a rotation-weight column that is not a column', inline({}, rows, { rotationWeightColumn: 'w' }), [['/rotationWeightColumn', 'UNKNOWN_COLUMN']]],
      ['a row key outside columnNames', inline({}, [{ sku: 'A', 'pri/ce': 3 }]), [['/data/0/pri~1ce', 'UNKNOWN_COLUMN']]],
      ['a row that is not an object', inline({}, [{ sku: 'A' }, ['A']]), [['/data/1', 'NOT_AN_OBJECT']]],
      ['a non-numeric rotation weight', inline({}, [{ sku: 'A', weight: 'heavy' }]), [['/data/0/weight', 'NOT_NUMERIC']]],
      ['a negative rotation weight', inline({}, [{ sku: 'A', weight: -1 }]), [['/data/0/weight', 'NOT_NUMERIC']]],
      ['an unknown content type', inline({ contentType: 'yaml' as never }), [['/contentType', 'NOT_ALLOWED']]],
      ['an overlong name', inline({ assetSourceName: 'x'.repeat(201) }), [['/assetSourceName', 'TOO_LONG']]],
      ['an overlong column name', inline({ columnNames: ['sku', 'name', 'weight', 'group', 'c'.repeat(129)] }), [['/columnNames/4', 'TOO_LONG']]],
      [
        'more than 100 columns',
        inline({ columnNames: Array.from({ length: 101 }, (_, i) => `c${i}`) }, [], { assetKeyColumn: null, rotationWeightColumn: null }),
        [['/columnNames', 'TOO_MANY_ITEMS']],
      ],
      ['a row over 16 KiB', inline({}, [{ sku: 'A', name: 'n'.repeat(16_400) }]), [['/data/0', 'TOO_LARGE']]],
    ])('refuses %s, naming the field, and stores nothing', async (_name, input, expected) => {
      const account = freshAccount();
      expect(await pointers(bed.assetSources.createInline(account, input))).toEqual(expected);
      expect((await bed.assetSources.list(account)).total).toBe(0);
    });

    it('names at most 20 bad rows, however many there are', async () => {
      const bad = Array.from({ length: 50 }, (_, i) => ({ sku: `S${i}`, colour: 'red' }));
      const found = await pointers(bed.assetSources.createInline(freshAccount(), inline({}, bad)));
      expect(found).toHaveLength(20);
      expect(found[19]).toEqual(['/data/19/colour', 'UNKNOWN_COLUMN']);
    });

    it('refuses data that is not an array', async () => {
      expect(await pointers(bed.assetSources.createInline(freshAccount(), { definition: definition(), rowsJson: '{"sku":"A"}' }))).toEqual([
        ['/data', 'INVALID_FORMAT'],
      ]);
    });
  });

  describe('inline PUT and PATCH', () => {
    it('PUT replaces the definition and every row', async () => {
      const account = freshAccount();
      const id = await bed.assetSources.createInline(account, inline());
      await bed.assetSources.replaceInline(
        account,
        id,
        inline({ assetSourceName: 'Renamed', columnNames: ['sku', 'label'] }, [{ sku: 'Z', label: 'z' }], { rotationWeightColumn: null }),
      );
      const data = await bed.assetSources.readData(account, id);
      expect(data.source).toMatchObject({ assetSourceName: 'Renamed', columnNames: ['sku', 'label'], columns: { rotationWeightColumn: null }, rowCount: 1 });
      expect(JSON.parse(data.rowsJson)).toEqual([{ sku: 'Z', label: 'z' }]);
    });

    it('PUT with a broken rule changes nothing', async () => {
      const account = freshAccount();
      const id = await bed.assetSources.createInline(account, inline());
      expect(await pointers(bed.assetSources.replaceInline(account, id, inline({}, [{ sku: 'A', weight: 'x' }])))).toEqual([['/data/0/weight', 'NOT_NUMERIC']]);
      expect(JSON.parse((await bed.assetSources.readData(account, id)).rowsJson)).toEqual(rows);
    });

    it('PATCH changes only the members it names', async () => {
      const account = freshAccount();
      const id = await bed.assetSources.createInline(account, inline());
      await bed.assetSources.patchInline(account, id, { present: new Set(['assetSourceName']), assetSourceName: 'Only the name', columns: {} });
      const renamed = await bed.assetSources.readData(account, id);
      expect(renamed.source).toMatchObject({
        assetSourceName: 'Only the name',
        columnNames: ['sku', 'name', 'weight', 'group'],
        columns: { assetKeyColumn: 'sku' },
      });
      expect(JSON.parse(renamed.rowsJson)).toEqual(rows);

      await bed.assetSources.patchInline(account, id, {
        present: new Set(['assetGroupColumn', 'rotationWeightColumn']),
        columns: { assetGroupColumn: 'group' },
      });
      expect((await bed.assetSources.get(account, id)).columns).toMatchObject({ assetGroupColumn: 'group', rotationWeightColumn: null, assetKeyColumn: 'sku' });

      await bed.assetSources.patchInline(account, id, { present: new Set(['data']), columns: {}, rowsJson: JSON.stringify([{ sku: 'N', name: 'New' }]) });
      const replaced = await bed.assetSources.readData(account, id);
      expect(JSON.parse(replaced.rowsJson)).toEqual([{ sku: 'N', name: 'New' }]);
      expect(replaced.source.assetSourceName).toBe('Only the name');
    });

    it('PATCH checks the result against the stored rows: dropping a column they use is refused', async () => {
      const account = freshAccount();
      const id = await bed.assetSources.createInline(account, inline());
      expect(
        await pointers(bed.assetSources.patchInline(account, id, { present: new Set(['columnNames']), columnNames: ['sku', 'name', 'weight'], columns: {} })),
      ).toEqual([['/columnNames', 'UNKNOWN_COLUMN']]);
      expect(await pointers(bed.assetSources.patchInline(account, id, { present: new Set(['assetKeyColumn']), columns: { assetKeyColumn: 'nope' } }))).toEqual([
        ['/assetKeyColumn', 'UNKNOWN_COLUMN'],
      ]);
      await bed.assetSources.patchInline(account, id, { present: new Set(['rotationWeightColumn']), columns: {} });
      expect(
        await pointers(
          bed.assetSources
            .patchInline(account, id, {
              present: new Set(['data']),
              columns: {},
              rowsJson: JSON.stringify([{ sku: 'A', name: 'heavy' }]),
            })
            .then(() => bed.assetSources.patchInline(account, id, { present: new Set(['rotationWeightColumn']), columns: { rotationWeightColumn: 'name' } })),
        ),
      ).toEqual([['/rotationWeightColumn', 'NOT_NUMERIC']]);
      expect((await bed.assetSources.get(account, id)).columns.rotationWeightColumn).toBeNull();
    });

    it('refuses to update a source of another kind (409) or of another account (404)', async () => {
      const account = freshAccount();
      const remote = await bed.assetSources.createRemote(account, {
        definition: definition(),
        remote: { url: 'https://example.com/feed.json', httpMethod: 'GET', additionalParams: '', cacheTime: 60 },
      });
      expect(await rejectionOf(bed.assetSources.replaceInline(account, remote, inline()))).toMatchObject({
        status: 409,
        code: 'ASSET_SOURCE_KIND_MISMATCH',
        detail: `Asset source ${remote} is a remote source, not an inline one.`,
      });
      const mine = await bed.assetSources.createInline(account, inline());
      expect(await rejectionOf(bed.assetSources.ofKind(account, mine, 'feed'))).toMatchObject({
        status: 409,
        code: 'ASSET_SOURCE_KIND_MISMATCH',
        detail: `Asset source ${mine} is an inline source, not a feed one.`,
      });
      expect(await rejectionOf(bed.assetSources.patchInline(freshAccount(), mine, { present: new Set(), columns: {} }))).toMatchObject({ status: 404 });
    });
  });

  describe('peer reads', () => {
    it('describes the named sources of the account, leaving out missing and foreign ids', async () => {
      const account = freshAccount();
      const id = await bed.assetSources.createInline(account, inline());
      const foreign = await bed.assetSources.createInline(freshAccount(), inline());
      const described = await bed.assetSources.describe(account, [id, foreign, 999_999_999]);
      expect(described.map((s) => [s.assetSourceId, s.columns.assetKeyColumn])).toEqual([[id, 'sku']]);
    });

    it('finds the first row per value by the key column (indexed) and by any other column', async () => {
      const account = freshAccount();
      const id = await bed.assetSources.createInline(account, inline({}, [...rows, { sku: 'A1', name: 'Second apple', group: 'fruit' }]));
      const byKey = await bed.assetSources.findRows(account, id, 'sku', ['A1', 'C3', 'missing']);
      expect(byKey.map((r) => [r.value, JSON.parse(r.rowJson).name])).toEqual([
        ['A1', 'Apple'],
        ['C3', 'Carrot'],
      ]);
      const byGroup = await bed.assetSources.findRows(account, id, 'group', ['veg', 'fruit']);
      expect(byGroup.map((r) => [r.value, JSON.parse(r.rowJson).sku])).toEqual([
        ['veg', 'C3'],
        ['fruit', 'A1'],
      ]);
      expect(await rejectionOf(bed.assetSources.findRows(account, id, 'colour', ['red']))).toMatchObject({ status: 400 });
    });

    it('keeps the key lookup right after the key column changes', async () => {
      const account = freshAccount();
      const id = await bed.assetSources.createInline(account, inline());
      await bed.assetSources.patchInline(account, id, { present: new Set(['assetKeyColumn']), columns: { assetKeyColumn: 'name' } });
      expect((await bed.assetSources.findRows(account, id, 'name', ['Banana'])).map((r) => JSON.parse(r.rowJson).sku)).toEqual(['B2']);
    });
  });

  describe('a large inline source', () => {
    it('stores 100,000 rows and reads a page deep inside them by position', async () => {
      const account = freshAccount();
      const many = Array.from({ length: 100_000 }, (_, i) => ({ sku: `S${i}`, name: `Item ${i}`, weight: i % 7 }));
      const id = await bed.assetSources.createInline(account, { definition: definition(), rowsJson: JSON.stringify(many) });
      const page = await bed.assetSources.readData(account, id, { offset: 87_650, limit: 100 });
      expect(page.total).toBe(100_000);
      const items = JSON.parse(page.rowsJson) as { sku: string }[];
      expect(items).toHaveLength(100);
      expect(items[0]?.sku).toBe('S87650');
      expect(items[99]?.sku).toBe('S87749');
    });
  });
});
