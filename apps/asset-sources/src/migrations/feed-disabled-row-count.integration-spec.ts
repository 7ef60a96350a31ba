import { migrateDown } from '@platform/mysql';
import { openTestSchema, type TestSchema } from '@platform/testing';
import { migrationsUpTo } from '.';
import { feedDisabledRowCount } from './20261129070000_feed_disabled_row_count';

jest.setTimeout(60_000);

/** The 20261129070000 migration on sources whose rows were set aside before it: each counts its own. */
describe('migration 20261129070000_feed_disabled_row_count', () => {
  let schema: TestSchema;

  beforeAll(async () => {
    schema = await openTestSchema({ tag: 'feedaside', base: 'asset_sources', migrations: migrationsUpTo(feedDisabledRowCount) });
  });

  afterAll(async () => {
    await schema?.close();
  });

  it('counts the rows each source holds aside, and down drops the count', async () => {
    const { knex } = schema.db;
    expect(await migrateDown(schema.db)).toEqual(['20261129070000_feed_disabled_row_count']);
    const feedSource = async (aside: number) => {
      const [id] = await knex('asset_sources').insert({ account_id: 1, asset_source_type: 'feed', asset_source_name: 'F', column_names: '["sku"]' });
      await knex('feed_sources').insert({
        asset_source_id: id,
        url_type: 'http',
        url_config: '{}',
        content_type: 'csv',
        character_encoding: 'UTF_8',
        csv_separator: 'comma',
      });
      for (let i = 0; i < aside; i++) await knex('feed_disabled_rows').insert({ asset_source_id: id, key_value: `K${i}`, row_json: `{"sku":"K${i}"}` });
      return Number(id);
    };
    const three = await feedSource(3);
    const none = await feedSource(0);

    await knex.migrate.latest();
    const counts = await knex('feed_sources').whereIn('asset_source_id', [three, none]).orderBy('asset_source_id').select('asset_source_id', 'disabled_rows');
    expect(counts.map((c: { disabled_rows: number }) => c.disabled_rows)).toEqual([3, 0]);

    await migrateDown(schema.db);
    expect(await knex.schema.hasColumn('feed_sources', 'disabled_rows')).toBe(false);
    await knex.migrate.latest();
  });
});
