import type { Migration } from '@platform/mysql';

/**
 * The retail feed designation (one row per account) and the indexed row values the retail feed list
 * reads: `sku`, `category` and `subCategory` of each row as virtual columns (computed from the row JSON,
 * never stored twice), each indexed with the source, so the distinct values of a 100,000-row source are
 * an index walk instead of parsing every row. The product of a source with an asset key column reads
 * `key_value`, already indexed.
 */
const VALUE_COLUMNS = [
  { column: 'sku_value', path: '$.sku', index: 'ix_asset_source_rows_sku' },
  { column: 'category_value', path: '$.category', index: 'ix_asset_source_rows_category' },
  { column: 'sub_category_value', path: '$.subCategory', index: 'ix_asset_source_rows_sub_category' },
] as const;

export const createRetailFeedSettings: Migration = {
  name: '20261123170000_create_retail_feed_settings',
  async up(knex) {
    await knex.schema.createTable('retail_feed_settings', (t) => {
      t.comment('The retail feed source of each account: the source the retail feed list reads products, categories and sub-categories from');
      t.bigInteger('account_id').primary();
      t.bigInteger('asset_source_id')
        .unsigned()
        .notNullable()
        .references('asset_source_id')
        .inTable('asset_sources')
        .onDelete('CASCADE')
        .withKeyName('fk_retail_feed_settings_source');
      t.datetime('updated_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
    });
    for (const { column, path, index } of VALUE_COLUMNS) {
      // JSON_VALUE is NULL for a missing key, a JSON null, an object or an array; text past 255 characters is cut, as key_value is.
      await knex.raw(
        `ALTER TABLE asset_source_rows ADD COLUMN ${column} VARCHAR(255) AS (LEFT(JSON_VALUE(row_json, '${path}'), 255)) VIRTUAL ` +
          `COMMENT 'The row value at ${path}, for the retail feed list', ADD INDEX ${index} (asset_source_id, ${column})`,
      );
    }
  },
  async down(knex) {
    for (const { column, index } of [...VALUE_COLUMNS].reverse()) await knex.raw(`ALTER TABLE asset_source_rows DROP INDEX ${index}, DROP COLUMN ${column}`);
    await knex.schema.dropTable('retail_feed_settings');
  },
};
