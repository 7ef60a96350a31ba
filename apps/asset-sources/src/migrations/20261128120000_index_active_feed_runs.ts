import type { Migration } from '@platform/mysql';

/** The account's queued and running feed runs, which its feed-ingest job cap counts at every start, found by index. */
export const indexActiveFeedRuns: Migration = {
  name: '20261128120000_index_active_feed_runs',
  async up(knex) {
    await knex.schema.alterTable('feed_runs', (t) => t.index(['account_id', 'status'], 'ix_feed_runs_account_status'));
  },
  async down(knex) {
    await knex.schema.alterTable('feed_runs', (t) => t.dropIndex(['account_id', 'status'], 'ix_feed_runs_account_status'));
  },
};
