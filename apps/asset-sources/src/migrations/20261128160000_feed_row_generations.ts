import type { Migration } from '@platform/mysql';

/** The secondary indexes of asset_source_rows, each led by (asset_source_id, generation) from now on. */
const INDEXES = [
  { index: 'ix_asset_source_rows_key', column: 'key_value' },
  { index: 'ix_asset_source_rows_sku', column: 'sku_value' },
  { index: 'ix_asset_source_rows_category', column: 'category_value' },
  { index: 'ix_asset_source_rows_sub_category', column: 'sub_category_value' },
] as const;

/**
 * Row generations: a feed run writes its rows once, straight into asset_source_rows under a
 * generation of its own that no read sees, and its swap only flips the source's `row_generation`
 * (with row_count) in one short transaction; the rows of the generation it replaced are deleted
 * afterwards, in batches. Reads filter on the source's current generation. Every other kind of
 * source keeps generation 0. The staging table the rows were copied from is gone.
 */
export const feedRowGenerations: Migration = {
  name: '20261128160000_feed_row_generations',
  async up(knex) {
    await knex.raw(
      `ALTER TABLE asset_sources ADD COLUMN row_generation INT NOT NULL DEFAULT 0 ` +
        `COMMENT 'The generation of asset_source_rows this source serves; a feed run flips it to the generation it wrote'`,
    );
    await knex.raw(
      `ALTER TABLE feed_sources ADD COLUMN last_row_generation INT NOT NULL DEFAULT 0 ` +
        `COMMENT 'The last row generation a run of this feed was given (each run writes its rows under a new one)'`,
    );
    await knex.raw(
      `ALTER TABLE feed_runs ADD COLUMN row_generation INT NULL ` +
        `COMMENT 'The row generation this run writes its rows under; served once the run is applied'`,
    );
    await knex.raw(
      `ALTER TABLE asset_source_rows ADD COLUMN generation INT NOT NULL DEFAULT 0 ` +
        `COMMENT 'The version of the source rows this row belongs to; reads see asset_sources.row_generation only' AFTER asset_source_id, ` +
        `DROP PRIMARY KEY, ADD PRIMARY KEY (asset_source_id, generation, ordinal), ` +
        INDEXES.map(({ index, column }) => `DROP INDEX ${index}, ADD INDEX ${index} (asset_source_id, generation, ${column})`).join(', '),
    );
    // A version the shrink guard holds keeps its rows: they become generation 1 of its source.
    await knex.raw(
      'INSERT INTO asset_source_rows (asset_source_id, generation, ordinal, key_value, row_json) ' +
        'SELECT f.asset_source_id, 1, s.ordinal, s.key_value, s.row_json FROM feed_sources f JOIN feed_staged_rows s ON s.queue_id = f.held_queue_id',
    );
    await knex.raw('UPDATE feed_runs r JOIN feed_sources f ON f.held_queue_id = r.queue_id SET r.row_generation = 1');
    await knex.raw('UPDATE feed_sources SET last_row_generation = 1 WHERE held_queue_id IS NOT NULL');
    await knex.schema.dropTable('feed_staged_rows');
  },
  async down(knex) {
    await knex.schema.createTable('feed_staged_rows', (t) => {
      t.comment('Rows of a run being read; swapped into asset_source_rows in one transaction once the whole feed has parsed');
      t.string('queue_id', 36).notNullable();
      t.integer('ordinal').notNullable();
      t.integer('line').notNullable();
      t.string('key_value', 255).nullable();
      t.specificType('row_json', 'MEDIUMTEXT').notNullable();
      t.primary(['queue_id', 'ordinal'], 'pk_feed_staged_rows');
      t.index(['queue_id', 'key_value'], 'ix_feed_staged_rows_key');
    });
    // A held version's rows go back to staging under its run; rows of runs neither served nor held
    // (part-written) are dropped, as their runs' staged rows would be.
    await knex.raw(
      'INSERT INTO feed_staged_rows (queue_id, ordinal, line, key_value, row_json) ' +
        'SELECT f.held_queue_id, r.ordinal, 0, r.key_value, r.row_json FROM feed_sources f JOIN feed_runs h ON h.queue_id = f.held_queue_id ' +
        'JOIN asset_source_rows r ON r.asset_source_id = f.asset_source_id AND r.generation = h.row_generation',
    );
    await knex.raw('DELETE r FROM asset_source_rows r JOIN asset_sources s ON s.asset_source_id = r.asset_source_id WHERE r.generation <> s.row_generation');
    await knex.raw(
      `ALTER TABLE asset_source_rows DROP PRIMARY KEY, ADD PRIMARY KEY (asset_source_id, ordinal), ` +
        INDEXES.map(({ index, column }) => `DROP INDEX ${index}, ADD INDEX ${index} (asset_source_id, ${column})`).join(', ') +
        ', DROP COLUMN generation',
    );
    await knex.raw('ALTER TABLE feed_runs DROP COLUMN row_generation');
    await knex.raw('ALTER TABLE feed_sources DROP COLUMN last_row_generation');
    await knex.raw('ALTER TABLE asset_sources DROP COLUMN row_generation');
  },
};
