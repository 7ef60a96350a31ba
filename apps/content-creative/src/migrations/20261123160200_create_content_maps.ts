import type { Migration } from '@platform/mysql';

export const createContentMaps: Migration = {
  name: '20261123160200_create_content_maps',
  async up(knex) {
    await knex.schema.createTable('content_maps', (t) => {
      t.comment('Which content a retail campaign shows on the placements of one media plan; saving replaces the whole map');
      t.bigIncrements('content_map_id').primary();
      t.bigInteger('account_id').notNullable();
      t.bigInteger('retail_campaign_id').notNullable().comment('channels-plans retail campaign');
      t.bigInteger('media_plan_id').notNullable().comment('channels-plans media plan of that campaign');
      t.string('content_type', 16).notNullable().comment('Product, Sub-category, Category, Creatives, All or Brand');
      t.bigInteger('data_service_id').nullable().comment('asset-sources source the content values were checked in');
      t.string('lookup_column', 128).nullable().comment('Column of that source the values were found in; read enriches items from it');
      t.datetime('updated_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.unique(['account_id', 'retail_campaign_id', 'media_plan_id'], { indexName: 'ux_content_maps_plan' });
    });
    await knex.schema.createTable('content_map_placements', (t) => {
      t.comment('One placement of a content map (per ad group for ad-group campaigns) with its content values');
      t.bigInteger('content_map_id')
        .unsigned()
        .notNullable()
        .references('content_map_id')
        .inTable('content_maps')
        .onDelete('CASCADE')
        .withKeyName('fk_content_map_placements_map');
      t.bigInteger('ad_group_id').notNullable().comment('0 for a campaign without ad groups');
      t.string('ad_group_name', 200).nullable();
      t.string('ad_group_status', 200).nullable();
      t.bigInteger('placement_id').notNullable();
      t.string('external_placement_id', 200).nullable();
      t.string('placement_name', 200).nullable().comment('As saved; read falls back to the media plan placement name');
      t.string('dimension', 200).nullable();
      t.string('site_id', 200).nullable();
      t.json('content').notNullable().comment('JSON array of at most 100 content values (SKUs, categories or creative names)');
      t.integer('position').notNullable().comment('Order of the placement in the saved request; pages follow it');
      t.primary(['content_map_id', 'ad_group_id', 'placement_id'], 'pk_content_map_placements');
      t.index(['content_map_id', 'position'], 'ix_content_map_placements_position');
    });
  },
  async down(knex) {
    await knex.schema.dropTable('content_map_placements');
    await knex.schema.dropTable('content_maps');
  },
};
