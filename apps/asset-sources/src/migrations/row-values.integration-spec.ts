import { migrateDown } from '@platform/mysql';
import { rowValues } from './20261128190000_row_values';
import { schemaUpTo } from './migration-test-support';

jest.setTimeout(60_000);

/**
 * The 20261128190000 migration on rows written before it: the values the virtual columns held become
 * rows of asset_source_row_values (sku only for a source without an asset key column), and down
 * brings the columns back.
 */
describe('migration 20261128190000_row_values', () => {
  const schema = schemaUpTo('rowvalues', rowValues);

  it('moves the listed values out of the rows and back', async () => {
    const { knex } = schema().db;
    expect(await migrateDown(schema().db)).toEqual(['20261128190000_row_values']);
    const source = async (keyColumn: string | null) => {
      const [id] = await knex('asset_sources').insert({
        account_id: 1,
        asset_source_type: 'inline',
        asset_source_name: 'S',
        column_names: '["sku","category"]',
        asset_key_column: keyColumn,
        row_count: 3,
      });
      const rows = [
        { sku: 'S1', category: 'shoes' },
        { sku: 'S2', category: 'Shoes' },
        { sku: 'S3', category: '' },
      ];
      await knex('asset_source_rows').insert(rows.map((row, ordinal) => ({ asset_source_id: id, ordinal, key_value: row.sku, row_json: JSON.stringify(row) })));
      return Number(id);
    };
    const keyed = await source('sku');
    const unkeyed = await source(null);

    await knex.migrate.latest();
    const values = async (id: number) =>
      (await knex('asset_source_row_values').where({ asset_source_id: id }).orderBy(['field', 'value']).select('generation', 'field', 'value')) as unknown[];
    expect(await values(keyed)).toEqual([{ generation: 0, field: 'category', value: 'Shoes' }]);
    expect(await values(unkeyed)).toEqual([
      { generation: 0, field: 'category', value: 'Shoes' },
      { generation: 0, field: 'sku', value: 'S1' },
      { generation: 0, field: 'sku', value: 'S2' },
      { generation: 0, field: 'sku', value: 'S3' },
    ]);
    expect(await knex.schema.hasColumn('asset_source_rows', 'category_value')).toBe(false);

    await migrateDown(schema().db);
    const [[row]] = (await knex.raw('SELECT sku_value, category_value FROM asset_source_rows WHERE asset_source_id = ? AND ordinal = 1', [keyed])) as [
      [{ sku_value: string; category_value: string }],
    ];
    expect(row).toEqual({ sku_value: 'S2', category_value: 'Shoes' });
    expect(await knex.schema.hasTable('asset_source_row_values')).toBe(false);
    await knex.migrate.latest();
  });
});
