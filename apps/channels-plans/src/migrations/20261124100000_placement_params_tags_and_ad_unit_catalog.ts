import type { Migration } from '@platform/mysql';

export const placementParamsTagsAndAdUnitCatalog: Migration = {
  name: '20261124100000_placement_params_tags_and_ad_unit_catalog',
  async up(knex) {
    await knex.schema.alterTable('placements', (t) => {
      t.json('params').nullable().comment('Ad-server parameters (adChoices ... tagType) as a JSON object of the ones set; NULL when none is');
      t.boolean('is_tag_present').notNullable().defaultTo(false).comment('Turned true by the tagging service once a tag exists for the placement');
      // Placements are named within their site now that callers create them; sizes may repeat on a site.
      t.unique(['site_idx', 'placement_name'], { indexName: 'uq_placements_site_name' });
    });
    // After the new index exists: fk_placements_site needs an index that starts with site_idx.
    await knex.schema.alterTable('placements', (t) => {
      t.dropUnique(['site_idx', 'dimension'], 'uq_placements_site_dimension');
    });

    await knex.schema.alterTable('media_plan_sites', (t) => {
      t.unique(['media_plan_id', 'ad_server_id', 'site_name'], { indexName: 'uq_media_plan_sites_plan_server_name' });
    });

    await knex.schema.createTable('ad_unit_types', (t) => {
      t.comment('Reference catalog of ad-unit types, seeded from code on every start');
      t.integer('ad_unit_type_id').unsigned().primary().comment('Stable id tags refer to (adUnitId, baseAdUnitId)');
      t.string('ad_unit_group', 16).notNullable().comment('in-banner, in-stream, mobile or native');
      t.string('name', 100).notNullable();
      t.boolean('is_dynamic_pri_video').notNullable().defaultTo(false).comment('In-stream only: dynamic product-rich video (dynamicPriVideo)');
    });
    await knex.schema.createTable('ad_unit_type_dimensions', (t) => {
      t.comment('Which ad-unit types a placement of a given dimension offers');
      t.string('dimension', 11).notNullable().comment('<width>x<height>');
      t.integer('ad_unit_type_id')
        .unsigned()
        .notNullable()
        .references('ad_unit_type_id')
        .inTable('ad_unit_types')
        .onDelete('CASCADE')
        .withKeyName('fk_ad_unit_type_dimensions_type');
      t.primary(['dimension', 'ad_unit_type_id']);
    });
  },
  async down(knex) {
    await knex.schema.dropTable('ad_unit_type_dimensions');
    await knex.schema.dropTable('ad_unit_types');
    await knex.schema.alterTable('media_plan_sites', (t) => {
      t.dropUnique(['media_plan_id', 'ad_server_id', 'site_name'], 'uq_media_plan_sites_plan_server_name');
    });
    await knex.schema.alterTable('placements', (t) => {
      t.unique(['site_idx', 'dimension'], { indexName: 'uq_placements_site_dimension' });
    });
    await knex.schema.alterTable('placements', (t) => {
      t.dropUnique(['site_idx', 'placement_name'], 'uq_placements_site_name');
      t.dropColumn('is_tag_present');
      t.dropColumn('params');
    });
  },
};
