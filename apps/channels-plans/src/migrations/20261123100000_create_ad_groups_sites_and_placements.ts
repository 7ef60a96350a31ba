import type { Migration } from '@platform/mysql';

export const createAdGroupsSitesAndPlacements: Migration = {
  name: '20261123100000_create_ad_groups_sites_and_placements',
  async up(knex) {
    await knex.schema.createTable('ad_groups', (t) => {
      t.comment('Ad groups of an ad-group retail campaign');
      t.bigIncrements('ad_group_id').primary().comment('Public id, shown as a string (adGroupId)');
      t.bigInteger('account_id').notNullable().comment('Owning account, the campaign account; every query filters by it');
      t.bigInteger('retail_campaign_id')
        .unsigned()
        .notNullable()
        .references('retail_campaign_id')
        .inTable('retail_campaigns')
        .withKeyName('fk_ad_groups_campaign');
      t.string('ad_group_name', 200).notNullable().comment('Unique within the campaign (the unique index decides, race-free)');
      t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.unique(['retail_campaign_id', 'ad_group_name'], { indexName: 'uq_ad_groups_campaign_name' });
    });

    await knex.schema.alterTable('media_plans', (t) => {
      t.string('auto_dimension_set', 600)
        .nullable()
        .comment('Auto plans only: their distinct dimensions, sorted and comma-joined; the same set on the same channel is the same plan');
      t.unique(['retail_campaign_id', 'media_channel_idx', 'auto_dimension_set'], { indexName: 'uq_media_plans_auto_dimension_set' });
    });

    await knex.schema.createTable('media_plan_sites', (t) => {
      t.comment('Sites of a media plan, each on one ad server');
      t.bigIncrements('site_idx').primary().comment('Public integer id (siteIdx)');
      t.bigInteger('media_plan_id').unsigned().notNullable().references('media_plan_id').inTable('media_plans').withKeyName('fk_media_plan_sites_plan');
      t.string('ad_server_id', 64).notNullable().references('ad_server_id').inTable('ad_servers').withKeyName('fk_media_plan_sites_ad_server');
      t.string('site_name', 200).notNullable();
      t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.index(['media_plan_id', 'site_idx'], 'ix_media_plan_sites_plan');
    });

    await knex.schema.createTable('placements', (t) => {
      t.comment('Placements of a media plan: one sized ad slot on one site');
      t.bigIncrements('placement_id').primary().comment('Public id, shown as a string (placementId)');
      t.bigInteger('media_plan_id').unsigned().notNullable().references('media_plan_id').inTable('media_plans').withKeyName('fk_placements_plan');
      t.bigInteger('site_idx').unsigned().notNullable().references('site_idx').inTable('media_plan_sites').withKeyName('fk_placements_site');
      t.string('placement_name', 200).notNullable();
      t.string('dimension', 11).notNullable().comment('<width>x<height>');
      t.string('ad_unit_type', 32).notNullable().comment('display, in-stream-video or dooh-screen');
      t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.unique(['site_idx', 'dimension'], { indexName: 'uq_placements_site_dimension' });
      t.index(['media_plan_id', 'placement_id'], 'ix_placements_plan');
    });
  },
  async down(knex) {
    await knex.schema.dropTable('placements');
    await knex.schema.dropTable('media_plan_sites');
    await knex.schema.alterTable('media_plans', (t) => {
      t.dropUnique(['retail_campaign_id', 'media_channel_idx', 'auto_dimension_set'], 'uq_media_plans_auto_dimension_set');
      t.dropColumn('auto_dimension_set');
    });
    await knex.schema.dropTable('ad_groups');
  },
};
