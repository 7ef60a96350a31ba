import type { Migration } from '@platform/mysql';

export const createTemplates: Migration = {
  name: '20261123100000_create_templates',
  async up(knex) {
    await knex.schema.createTable('templates', (t) => {
      t.comment('Retail templates: the seeded System catalog and the Custom templates of accounts');
      t.bigIncrements('template_idx').primary();
      t.string('catalog_key', 64).nullable().comment('Stable key of a System template in the shipped catalog; the seed upserts by it');
      t.bigInteger('account_id').nullable().comment('Owning account of a Custom template; NULL for System templates, visible to every account');
      t.string('ownership', 8).notNullable().comment('System or Custom');
      t.string('template_name', 200).notNullable().collate('utf8mb4_unicode_ci').comment('Searched case-insensitively by substring');
      t.bigInteger('retailer_id').notNullable();
      t.string('inventory_type', 8).notNullable().comment('offsite or onsite');
      t.string('ad_format', 64).notNullable().collate('utf8mb4_unicode_ci');
      t.string('source_of_product_information', 32).notNullable();
      t.string('product_selection_method', 32).notNullable();
      t.json('creative_styles').notNullable().comment('JSON array as returned; filtered through template_tags');
      t.json('categories').notNullable().comment('JSON array as returned; filtered through template_tags');
      t.json('template_types').notNullable().comment('JSON array as returned; filtered through template_tags');
      t.json('dimensions').notNullable().comment('JSON array of <width>x<height>');
      t.json('layouts').notNullable().comment('JSON array of per-dimension layouts');
      t.specificType('thumbnail_png', 'MEDIUMBLOB').notNullable().comment('PNG of the first layout, rendered when the template is stored');
      t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.datetime('updated_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.unique(['catalog_key'], { indexName: 'ux_templates_catalog_key' });
      t.index(['account_id', 'template_idx'], 'ix_templates_account');
      t.index(['retailer_id'], 'ix_templates_retailer');
    });
    await knex.schema.createTable('template_tags', (t) => {
      t.comment('One row per value of the array fields of a template, so an any-of filter is an indexed EXISTS');
      t.bigInteger('template_idx')
        .unsigned()
        .notNullable()
        .references('template_idx')
        .inTable('templates')
        .onDelete('CASCADE')
        .withKeyName('fk_template_tags_template');
      t.string('kind', 16).notNullable().comment('creativeStyle, category or templateType');
      t.string('value', 64).notNullable().collate('utf8mb4_unicode_ci');
      t.primary(['template_idx', 'kind', 'value'], 'pk_template_tags');
      t.index(['kind', 'value', 'template_idx'], 'ix_template_tags_value');
    });
    await knex.schema.createTable('template_bookmarks', (t) => {
      t.comment('Templates an account bookmarked');
      t.bigInteger('account_id').notNullable();
      t.bigInteger('template_idx')
        .unsigned()
        .notNullable()
        .references('template_idx')
        .inTable('templates')
        .onDelete('CASCADE')
        .withKeyName('fk_template_bookmarks_template');
      t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.primary(['account_id', 'template_idx'], 'pk_template_bookmarks');
      t.index(['template_idx'], 'ix_template_bookmarks_template');
    });
  },
  async down(knex) {
    await knex.schema.dropTable('template_bookmarks');
    await knex.schema.dropTable('template_tags');
    await knex.schema.dropTable('templates');
  },
};
