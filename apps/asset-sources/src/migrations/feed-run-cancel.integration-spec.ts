import { migrateDown } from '@platform/mysql';
import { feedRunCancel } from './20261129120000_feed_run_cancel';
import { insertFeedSource, schemaUpTo } from './migration-test-support';

jest.setTimeout(60_000);

/** The 20261129120000 migration: runs gain the owner's cancel; undone, a cancelled run reads as failed. */
describe('migration 20261129120000_feed_run_cancel', () => {
  const schema = schemaUpTo('feedcancelmig', feedRunCancel);

  it('adds cancel_requested_at and superseded_by, and down turns Cancelled runs into Failed ones before dropping it', async () => {
    const { knex } = schema().db;
    expect(await knex.schema.hasColumn('feed_runs', 'cancel_requested_at')).toBe(true);
    expect(await knex.schema.hasColumn('feed_runs', 'superseded_by')).toBe(true);
    const id = await insertFeedSource(knex);
    const run = (queueId: string, status: string) =>
      knex('feed_runs').insert({ queue_id: queueId, asset_source_id: id, account_id: 1, run_trigger: 'refresh', status, message: status });
    await run('q-cancelled', 'Cancelled');
    await run('q-completed', 'Completed');
    await knex('feed_runs').where({ queue_id: 'q-cancelled' }).update({ cancel_requested_at: new Date() });

    expect(await migrateDown(schema().db)).toEqual(['20261129120000_feed_run_cancel']);
    expect(await knex.schema.hasColumn('feed_runs', 'cancel_requested_at')).toBe(false);
    expect(await knex.schema.hasColumn('feed_runs', 'superseded_by')).toBe(false);
    const statuses = await knex('feed_runs').where({ asset_source_id: id }).orderBy('queue_id').select('queue_id', 'status');
    expect(statuses).toEqual([
      { queue_id: 'q-cancelled', status: 'Failed' },
      { queue_id: 'q-completed', status: 'Completed' },
    ]);

    await knex.migrate.latest();
    expect(await knex.schema.hasColumn('feed_runs', 'cancel_requested_at')).toBe(true);
  });
});
