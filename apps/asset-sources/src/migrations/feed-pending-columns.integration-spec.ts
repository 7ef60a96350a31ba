import { migrateDown } from '@platform/mysql';
import { feedPendingColumns } from './20261129230000_feed_pending_columns';
import { insertFeedSource, schemaUpTo } from './migration-test-support';

jest.setTimeout(60_000);

/** The 20261129230000 migration: pending columns on the source, the columns read on each run; undone, both go and the rows stay. */
describe('migration 20261129230000_feed_pending_columns', () => {
  const schema = schemaUpTo('feedpendingcolsmig', feedPendingColumns);

  it('adds pending_columns and column_set, and down drops them keeping every source and run', async () => {
    const { knex } = schema().db;
    expect(await knex.schema.hasColumn('feed_sources', 'pending_columns')).toBe(true);
    expect(await knex.schema.hasColumn('feed_runs', 'column_set')).toBe(true);
    const id = await insertFeedSource(knex);
    const columnSet = JSON.stringify({ columnNames: ['sku'], columns: { assetKeyColumn: 'sku' } });
    await knex('feed_sources').where({ asset_source_id: id }).update({ pending_columns: columnSet });
    await knex('feed_runs').insert({
      queue_id: 'q-read',
      asset_source_id: id,
      account_id: 1,
      run_trigger: 'update',
      status: 'Processing',
      message: '',
      column_set: columnSet,
    });

    expect(await migrateDown(schema().db)).toEqual(['20261129230000_feed_pending_columns']);
    expect(await knex.schema.hasColumn('feed_sources', 'pending_columns')).toBe(false);
    expect(await knex.schema.hasColumn('feed_runs', 'column_set')).toBe(false);
    expect(await knex('feed_runs').where({ asset_source_id: id }).pluck('queue_id')).toEqual(['q-read']);
    expect(await knex('feed_sources').where({ asset_source_id: id }).pluck('asset_source_id')).toEqual([id]);

    await knex.migrate.latest();
    expect(await knex.schema.hasColumn('feed_runs', 'column_set')).toBe(true);
  });
});
