import type { Migration } from '@platform/mysql';

/**
 * A run its owner cancels (extension), or that an update of the feed's settings supersedes: the
 * request is stamped on the run, where the running job looks for it and where every end the job would
 * write is refused from then on, so a cancelled run is never served. The trigger and status comments
 * name the values added since (refresh, Cancelled).
 */
export const feedRunCancel: Migration = {
  name: '20261129120000_feed_run_cancel',
  async up(knex) {
    await knex.raw(
      `ALTER TABLE feed_runs ADD COLUMN cancel_requested_at DATETIME(3) NULL ` +
        `COMMENT 'When the run was cancelled (by its owner or an update); from then on it can only end Cancelled', ` +
        `ADD COLUMN superseded_by VARCHAR(36) NULL ` +
        `COMMENT 'The run of the settings update that cancelled this one; NULL when its owner cancelled it', ` +
        `MODIFY COLUMN run_trigger VARCHAR(16) NOT NULL COMMENT 'create, update, refresh or schedule', ` +
        `MODIFY COLUMN status VARCHAR(16) NOT NULL COMMENT 'Queued, Processing, Completed, Skipped, Held, Failed or Cancelled'`,
    );
  },
  async down(knex) {
    // A cancelled run reads as the failed run it was before runs could be cancelled.
    await knex.raw(`UPDATE feed_runs SET status = 'Failed' WHERE status = 'Cancelled'`);
    await knex.raw(
      `ALTER TABLE feed_runs DROP COLUMN cancel_requested_at, DROP COLUMN superseded_by, ` +
        `MODIFY COLUMN run_trigger VARCHAR(16) NOT NULL COMMENT 'create, update or schedule', ` +
        `MODIFY COLUMN status VARCHAR(16) NOT NULL COMMENT 'Queued, Processing, Completed, Skipped, Held or Failed'`,
    );
  },
};
