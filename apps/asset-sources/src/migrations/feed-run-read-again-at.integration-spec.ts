import { migrateDown } from '@platform/mysql';
import { feedRunReadAgainAt } from './20261129210000_feed_run_read_again_at';
import { insertFeedSource, schemaUpTo } from './migration-test-support';

jest.setTimeout(60_000);

/** The 20261129210000 migration: a run waiting to read again says when; undone, the column goes and the runs stay. */
describe('migration 20261129210000_feed_run_read_again_at', () => {
  const schema = schemaUpTo('feedreadagainmig', feedRunReadAgainAt);

  it('adds read_again_at, and down drops it keeping every run', async () => {
    const { knex } = schema().db;
    expect(await knex.schema.hasColumn('feed_runs', 'read_again_at')).toBe(true);
    const id = await insertFeedSource(knex);
    await knex('feed_runs').insert({
      queue_id: 'q-waiting',
      asset_source_id: id,
      account_id: 1,
      run_trigger: 'schedule',
      status: 'Processing',
      message: 'Reading it again in 1 min',
      read_again_at: new Date(),
    });

    expect(await migrateDown(schema().db)).toEqual(['20261129210000_feed_run_read_again_at']);
    expect(await knex.schema.hasColumn('feed_runs', 'read_again_at')).toBe(false);
    expect(await knex('feed_runs').where({ asset_source_id: id }).pluck('queue_id')).toEqual(['q-waiting']);

    await knex.migrate.latest();
    expect(await knex.schema.hasColumn('feed_runs', 'read_again_at')).toBe(true);
  });
});
