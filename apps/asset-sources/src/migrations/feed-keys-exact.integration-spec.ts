import { migrateDown } from '@platform/mysql';
import { feedKeysExact } from './20261130050000_feed_keys_exact';
import { insertFeedSource, schemaUpTo } from './migration-test-support';

jest.setTimeout(60_000);

/** The 20261130050000 migration: key values compared by their bytes; undone, the schema's collation again. */
describe('migration 20261130050000_feed_keys_exact', () => {
  const schema = schemaUpTo('feedkeysexact', feedKeysExact);

  const collations = async () => {
    const { knex, schema: name } = schema().db;
    const [rows] = (await knex.raw(
      "SELECT TABLE_NAME AS t, COLLATION_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND COLUMN_NAME = 'key_value' " +
        "AND TABLE_NAME IN ('asset_source_rows', 'feed_disabled_rows') ORDER BY TABLE_NAME",
      [name],
    )) as [{ t: string; c: string }[]];
    return rows.map((row) => `${row.t}: ${row.c}`);
  };

  it('tells keys apart by case, accent and trailing space; down restores the collation unless keys set aside would collide', async () => {
    const { knex } = schema().db;
    expect(await collations()).toEqual(['asset_source_rows: utf8mb4_nopad_bin', 'feed_disabled_rows: utf8mb4_nopad_bin']);
    const id = await insertFeedSource(knex);
    const keys = ['SKU1', 'sku1', 'sku1 ', 'café', 'cafe'];
    await knex('asset_source_rows').insert(keys.map((key, ordinal) => ({ asset_source_id: id, ordinal, key_value: key, row_json: '{}' })));
    await knex('feed_disabled_rows').insert(keys.map((key) => ({ asset_source_id: id, key_value: key, row_json: '{}' })));
    for (const key of keys) expect(await knex('asset_source_rows').where({ asset_source_id: id, key_value: key }).pluck('key_value')).toEqual([key]);

    // Five keys aside that the schema's collation takes for two: down is refused and changes nothing.
    await expect(migrateDown(schema().db)).rejects.toThrow(/Duplicate entry/);
    expect(await collations()).toEqual(['asset_source_rows: utf8mb4_nopad_bin', 'feed_disabled_rows: utf8mb4_nopad_bin']);

    await knex('feed_disabled_rows').where({ asset_source_id: id }).whereNotIn('key_value', ['SKU1', 'café']).delete();
    expect(await migrateDown(schema().db)).toEqual(['20261130050000_feed_keys_exact']);
    expect(await collations()).toEqual(['asset_source_rows: utf8mb4_unicode_ci', 'feed_disabled_rows: utf8mb4_unicode_ci']);
    expect(await knex('asset_source_rows').where({ asset_source_id: id, key_value: 'sku1' }).orderBy('ordinal').pluck('key_value')).toEqual([
      'SKU1',
      'sku1',
      'sku1 ',
    ]);

    await knex.migrate.latest();
    expect(await collations()).toEqual(['asset_source_rows: utf8mb4_nopad_bin', 'feed_disabled_rows: utf8mb4_nopad_bin']);
  });
});
