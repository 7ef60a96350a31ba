import type { Migration } from '@platform/mysql';

export const createRetailCampaignsAndMediaPlans: Migration = {
  name: '20261122100100_create_retail_campaigns_and_media_plans',
  async up(knex) {
    await knex.schema.createTable('retail_campaigns', (t) => {
      t.comment('Retail campaigns (also called template campaigns when built from a template)');
      t.bigIncrements('retail_campaign_id').primary();
      t.bigInteger('account_id').notNullable().comment('Owning account; every query filters by it');
      t.string('campaign_name', 200).notNullable();
      t.bigInteger('template_idx').nullable().comment('Template the campaign was built from, owned by the templates service');
      t.boolean('is_ad_group_campaign').notNullable().defaultTo(false);
      t.boolean('is_sbt').notNullable().defaultTo(false).comment('Sponsored-brand template campaign');
      t.string('status', 16).notNullable().defaultTo('DRAFT').comment('DRAFT, ACTIVE, PAUSED or ARCHIVED');
      t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.datetime('updated_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.index(['account_id', 'retail_campaign_id'], 'ix_retail_campaigns_account');
    });
    await knex.schema.createTable('media_plans', (t) => {
      t.comment('Media plans of a retail campaign, each on one media channel');
      t.bigIncrements('media_plan_id').primary();
      t.bigInteger('account_id').notNullable();
      t.bigInteger('retail_campaign_id')
        .unsigned()
        .notNullable()
        .references('retail_campaign_id')
        .inTable('retail_campaigns')
        .withKeyName('fk_media_plans_campaign');
      t.bigInteger('media_channel_idx').unsigned().notNullable().references('idx').inTable('media_channels').withKeyName('fk_media_plans_channel');
      t.string('media_plan_name', 200).notNullable();
      t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.index(['retail_campaign_id', 'media_channel_idx'], 'ix_media_plans_campaign_channel');
    });
  },
  async down(knex) {
    await knex.schema.dropTable('media_plans');
    await knex.schema.dropTable('retail_campaigns');
  },
};
