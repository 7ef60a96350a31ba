import type { Migration } from '@platform/mysql';

/**
 * A run its owner cancels (extension): the request is stamped on the run, where the running job looks
 * for it and where every end the job would write is refused from then on, so a cancelled run is never
 * served. The trigger and status comments name the values added since (refresh, Cancelled).
 */
export const feedRunCancel: Migration = {
  name: '20261129120000_feed_run_cancel',
  async up(knex) {
    await knex.raw(
      `ALTER TABLE feed_runs ADD COLUMN cancel_requested_at DATETIME(3) NULL ` +
        `COMMENT 'When the owner asked to cancel the run; from then on it can only end Cancelled', ` +
        `MODIFY COLUMN run_trigger VARCHAR(16) NOT NULL COMMENT 'create, update, refresh or schedule', ` +
        `MODIFY COLUMN status VARCHAR(16) NOT NULL COMMENT 'Queued, Processing, Completed, Skipped, Held, Failed or Cancelled'`,
    );
  },
  async down(knex) {
    // A cancelled run reads as the failed run it was before runs could be cancelled.
    await knex.raw(`UPDATE feed_runs SET status = 'Failed' WHERE status = 'Cancelled'`);
    await knex.raw(
      `ALTER TABLE feed_runs DROP COLUMN cancel_requested_at, ` +
        `MODIFY COLUMN run_trigger VARCHAR(16) NOT NULL COMMENT 'create, update or schedule', ` +
        `MODIFY COLUMN status VARCHAR(16) NOT NULL COMMENT 'Queued, Processing, Completed, Skipped, Held or Failed'`,
    );
  },
};
