import { migrateDown } from '@platform/mysql';
import { feedDisabledRowCount } from './20261129070000_feed_disabled_row_count';
import { insertFeedSource, schemaUpTo } from './migration-test-support';

jest.setTimeout(60_000);

/** The 20261129070000 migration on sources whose rows were set aside before it: each counts its own. */
describe('migration 20261129070000_feed_disabled_row_count', () => {
  const schema = schemaUpTo('feedaside', feedDisabledRowCount);

  it('counts the rows each source holds aside, and down drops the count', async () => {
    const { knex } = schema().db;
    expect(await migrateDown(schema().db)).toEqual(['20261129070000_feed_disabled_row_count']);
    const feedSource = async (aside: number) => {
      const id = await insertFeedSource(knex);
      for (let i = 0; i < aside; i++) await knex('feed_disabled_rows').insert({ asset_source_id: id, key_value: `K${i}`, row_json: `{"sku":"K${i}"}` });
      return id;
    };
    const three = await feedSource(3);
    const none = await feedSource(0);

    await knex.migrate.latest();
    const counts = await knex('feed_sources').whereIn('asset_source_id', [three, none]).orderBy('asset_source_id').select('asset_source_id', 'disabled_rows');
    expect(counts.map((c: { disabled_rows: number }) => c.disabled_rows)).toEqual([3, 0]);

    await migrateDown(schema().db);
    expect(await knex.schema.hasColumn('feed_sources', 'disabled_rows')).toBe(false);
    await knex.migrate.latest();
  });
});
