import type { Migration } from '@platform/mysql';

/** The virtual columns of asset_source_rows this migration replaces, with their index and JSON path. */
const VALUE_COLUMNS = [
  { field: 'sku', column: 'sku_value', path: '$.sku', index: 'ix_asset_source_rows_sku' },
  { field: 'category', column: 'category_value', path: '$.category', index: 'ix_asset_source_rows_category' },
  { field: 'subCategory', column: 'sub_category_value', path: '$.subCategory', index: 'ix_asset_source_rows_sub_category' },
] as const;

/**
 * The retail feed list's values move from three indexed virtual columns of asset_source_rows (a JSON
 * path evaluated and an index entry written for every row of every source, the largest cost of a
 * feed's ingestion in MariaDB) to asset_source_row_values: the distinct values per source, generation
 * and field, written beside the rows. A source with an asset key column lists its products by
 * key_value, so its sku values are not kept.
 */
export const rowValues: Migration = {
  name: '20261128190000_row_values',
  async up(knex) {
    await knex.schema.createTable('asset_source_row_values', (t) => {
      t.comment('The distinct values of the fields the retail feed list reads (sku, category, subCategory), per source and row generation');
      t.bigInteger('asset_source_id')
        .unsigned()
        .notNullable()
        .references('asset_source_id')
        .inTable('asset_sources')
        .onDelete('CASCADE')
        .withKeyName('fk_asset_source_row_values_source');
      t.integer('generation').notNullable().comment('The row generation the value occurs in');
      t.string('field', 16).notNullable().comment('sku, category or subCategory');
      t.string('value', 255)
        .notNullable()
        .comment('The value (first 255 characters); values equal ignoring case are one, kept in their first spelling in binary order');
      t.primary(['asset_source_id', 'generation', 'field', 'value'], 'pk_asset_source_row_values');
    });
    for (const { field, column } of VALUE_COLUMNS) {
      const unkeyed = field === 'sku' ? 'JOIN asset_sources s ON s.asset_source_id = r.asset_source_id AND s.asset_key_column IS NULL ' : '';
      await knex.raw(
        'INSERT INTO asset_source_row_values (asset_source_id, generation, field, value) ' +
          `SELECT r.asset_source_id, r.generation, ?, MIN(r.${column} COLLATE utf8mb4_bin) FROM asset_source_rows r ${unkeyed}` +
          `WHERE r.${column} > '' GROUP BY r.asset_source_id, r.generation, r.${column}`,
        [field],
      );
    }
    await knex.raw(`ALTER TABLE asset_source_rows ${VALUE_COLUMNS.map(({ column, index }) => `DROP INDEX ${index}, DROP COLUMN ${column}`).join(', ')}`);
  },
  async down(knex) {
    await knex.raw(
      `ALTER TABLE asset_source_rows ${VALUE_COLUMNS.map(
        ({ column, path, index }) =>
          `ADD COLUMN ${column} VARCHAR(255) AS (LEFT(JSON_VALUE(row_json, '${path}'), 255)) VIRTUAL ` +
          `COMMENT 'The row value at ${path}, for the retail feed list', ADD INDEX ${index} (asset_source_id, generation, ${column})`,
      ).join(', ')}`,
    );
    await knex.schema.dropTable('asset_source_row_values');
  },
};
