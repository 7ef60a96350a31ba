import { migrateDown } from '@platform/mysql';
import { feedKeysExact } from './20261130050000_feed_keys_exact';
import { insertFeedSource, schemaUpTo } from './migration-test-support';

jest.setTimeout(60_000);

/** The 20261130050000 migration: keys set aside compared by their bytes; undone, the schema's collation again. */
describe('migration 20261130050000_feed_keys_exact', () => {
  const schema = schemaUpTo('feedkeysexact', feedKeysExact);

  const collation = async () => {
    const { knex, schema: name } = schema().db;
    const [rows] = (await knex.raw(
      "SELECT COLLATION_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'feed_disabled_rows' AND COLUMN_NAME = 'key_value'",
      [name],
    )) as [{ c: string }[]];
    return rows[0]?.c;
  };

  it('sets aside keys apart by case, accent and trailing space; down restores the collation unless they would collide', async () => {
    const { knex } = schema().db;
    expect(await collation()).toBe('utf8mb4_nopad_bin');
    const id = await insertFeedSource(knex);
    const keys = ['SKU1', 'sku1', 'sku1 ', 'café', 'cafe'];
    await knex('feed_disabled_rows').insert(keys.map((key) => ({ asset_source_id: id, key_value: key, row_json: '{}' })));
    for (const key of keys) expect(await knex('feed_disabled_rows').where({ asset_source_id: id, key_value: key }).pluck('key_value')).toEqual([key]);

    // Five keys aside that the schema's collation takes for two: down is refused and changes nothing.
    await expect(migrateDown(schema().db)).rejects.toThrow(/Duplicate entry/);
    expect(await collation()).toBe('utf8mb4_nopad_bin');

    await knex('feed_disabled_rows').where({ asset_source_id: id }).whereNotIn('key_value', ['SKU1', 'café']).delete();
    expect(await migrateDown(schema().db)).toEqual(['20261130050000_feed_keys_exact']);
    expect(await collation()).toBe('utf8mb4_unicode_ci');
    expect(await knex('feed_disabled_rows').where({ asset_source_id: id, key_value: 'sku1 ' }).pluck('key_value')).toEqual(['SKU1']);

    await knex.migrate.latest();
    expect(await collation()).toBe('utf8mb4_nopad_bin');
  });
});
