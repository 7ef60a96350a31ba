import type { Migration } from '@platform/mysql';

/**
 * How many rows the disable policy holds aside, kept on the source by the swap that sets them aside,
 * so the detail (and every data page, which carries it) reads it with the source's settings instead
 * of counting feed_disabled_rows per read.
 */
export const feedDisabledRowCount: Migration = {
  name: '20261129070000_feed_disabled_row_count',
  async up(knex) {
    await knex.raw(
      `ALTER TABLE feed_sources ADD COLUMN disabled_rows INT NOT NULL DEFAULT 0 ` +
        `COMMENT 'Rows of feed_disabled_rows for this source; written by the swap in the same transaction'`,
    );
    await knex.raw('UPDATE feed_sources f SET disabled_rows = (SELECT COUNT(*) FROM feed_disabled_rows d WHERE d.asset_source_id = f.asset_source_id)');
  },
  async down(knex) {
    await knex.raw('ALTER TABLE feed_sources DROP COLUMN disabled_rows');
  },
};
