import type { Migration } from '@platform/mysql';

/**
 * A feed source's columns describe the rows serving: their keys were computed with its key column.
 * An update that changes them while a version serves keeps them as pending (what its run reads the
 * feed into); each run records the columns it read into, and the swap of its version applies them.
 */
export const feedPendingColumns: Migration = {
  name: '20261129230000_feed_pending_columns',
  async up(knex) {
    await knex.raw(
      `ALTER TABLE feed_sources ADD COLUMN pending_columns TEXT NULL ` +
        `COMMENT 'JSON {columnNames, columns}: the columns an update gave while a version serves, applied to asset_sources by the swap of a run that read them; NULL when none wait'`,
    );
    await knex.raw(
      `ALTER TABLE feed_runs ADD COLUMN column_set TEXT NULL ` +
        `COMMENT 'JSON {columnNames, columns}: the columns the run read the feed into, applied to asset_sources when its version is swapped in; NULL before it started reading'`,
    );
  },
  async down(knex) {
    await knex.raw(`ALTER TABLE feed_runs DROP COLUMN column_set`);
    await knex.raw(`ALTER TABLE feed_sources DROP COLUMN pending_columns`);
  },
};
