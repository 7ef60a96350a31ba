import type { Migration } from '@platform/mysql';

/**
 * Moves the wide columns (layouts JSON and the thumbnail PNG, a few KB a template) out of
 * `templates` into `template_assets`. Search filters and counts read `templates` row by row through
 * primary-key lookups; with the wide columns inline a 100,000-template catalog was ~450 MB, larger
 * than the buffer pool, and a count read thousands of pages from disk (~0.5 s). Narrow, the table
 * is ~28 MB and the same count takes ~20 ms. Only the page's own rows read their assets.
 */
export const splitTemplateAssets: Migration = {
  name: '20261123150000_split_template_assets',
  async up(knex) {
    await knex.schema.createTable('template_assets', (t) => {
      t.comment('What a template draws: per-dimension layouts and the thumbnail rendered from them; read only for the rows of a page');
      t.bigInteger('template_idx')
        .unsigned()
        .notNullable()
        .primary('pk_template_assets')
        .references('template_idx')
        .inTable('templates')
        .onDelete('CASCADE')
        .withKeyName('fk_template_assets_template');
      t.json('layouts').notNullable().comment('JSON array of per-dimension layouts');
      t.specificType('thumbnail_png', 'MEDIUMBLOB').notNullable().comment('PNG of the first layout, rendered when the template is stored');
    });
    await knex.raw('INSERT INTO template_assets (template_idx, layouts, thumbnail_png) SELECT template_idx, layouts, thumbnail_png FROM templates');
    // FORCE rebuilds the table: MariaDB drops columns instantly, leaving the old wide rows on disk.
    await knex.raw('ALTER TABLE templates DROP COLUMN layouts, DROP COLUMN thumbnail_png, FORCE');
  },
  async down(knex) {
    await knex.schema.alterTable('templates', (t) => {
      t.json('layouts').nullable();
      t.specificType('thumbnail_png', 'MEDIUMBLOB').nullable();
    });
    await knex.raw('UPDATE templates t JOIN template_assets a ON a.template_idx = t.template_idx SET t.layouts = a.layouts, t.thumbnail_png = a.thumbnail_png');
    await knex.schema.dropTable('template_assets');
  },
};
