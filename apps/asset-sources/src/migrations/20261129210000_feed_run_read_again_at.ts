import type { Migration } from '@platform/mysql';

/**
 * A run that waits to read its feed again after a failure another try may not meet stamps when it reads
 * again; a refresh of its source brings that forward to now, so the owner who fixed the host sees the
 * run read at once instead of a second one queued behind it.
 */
export const feedRunReadAgainAt: Migration = {
  name: '20261129210000_feed_run_read_again_at',
  async up(knex) {
    await knex.raw(
      `ALTER TABLE feed_runs ADD COLUMN read_again_at DATETIME(3) NULL ` + `COMMENT 'While the run waits to read its feed again: when it does; NULL otherwise'`,
    );
  },
  async down(knex) {
    await knex.raw(`ALTER TABLE feed_runs DROP COLUMN read_again_at`);
  },
};
