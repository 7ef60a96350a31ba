import type { Migration } from '@platform/mysql';

/**
 * Thumbnails move to object storage (templates/<key>.png), each under the content hash of the layout
 * it shows; the row keeps only that key, in the narrow `templates` table, so a search page names its
 * thumbnails without reading `template_assets`. Existing rows get their key (and their object) from the
 * service at its next start, which computes both from the stored layouts.
 */
export const storeTemplateThumbnails: Migration = {
  name: '20261124120000_store_template_thumbnails',
  async up(knex) {
    await knex.schema.alterTable('templates', (t) => {
      t.specificType('thumbnail_key', 'CHAR(64) CHARACTER SET ascii')
        .nullable()
        .comment('SHA-256 hex of the first layout (and drawing version); the PNG is templates/<key>.png in object storage');
    });
    await knex.schema.alterTable('template_assets', (t) => {
      t.dropColumn('thumbnail_png');
    });
  },
  async down(knex) {
    await knex.schema.alterTable('template_assets', (t) => {
      t.specificType('thumbnail_png', 'MEDIUMBLOB').nullable();
    });
    await knex.schema.alterTable('templates', (t) => {
      t.dropColumn('thumbnail_key');
    });
  },
};
