import type { Migration } from '@platform/mysql';

/**
 * One counter bumped in the transaction of every write that can change a search's matches
 * (templates, their tags, bookmarks). A search reads it in the same statement as its page, so a
 * replica can reuse a count it computed at that version instead of counting again.
 */
export const createTemplateCatalogVersion: Migration = {
  name: '20261123160000_create_template_catalog_version',
  async up(knex) {
    await knex.schema.createTable('template_catalog_version', (t) => {
      t.comment('A single row: the version of everything template search reads; counts are cached per version');
      t.tinyint('id').unsigned().notNullable().primary('pk_template_catalog_version').comment('Always 1');
      t.bigInteger('version').unsigned().notNullable();
    });
    await knex('template_catalog_version').insert({ id: 1, version: 1 });
  },
  async down(knex) {
    await knex.schema.dropTable('template_catalog_version');
  },
};
