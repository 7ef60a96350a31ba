import type { Migration } from '@platform/mysql';

export const createDynamicCampaigns: Migration = {
  name: '20261123160100_create_dynamic_campaigns',
  async up(knex) {
    await knex.schema.createTable('dynamic_campaigns', (t) => {
      t.comment('Dynamic campaigns: which assets a campaign draws on and how data signals pick its creative master');
      t.bigIncrements('campaign_id').primary();
      t.bigInteger('account_id').notNullable().comment('Owning account; every read is scoped by it');
      t.string('campaign_name', 200).notNullable();
      t.string('default_url', 2048).notNullable().comment('Landing URL when no segment sets one');
      t.json('asset_map').notNullable().comment('JSON array of {assetId, assetSourceId, assetSourceColumn}; bounded by the request rules');
      t.json('decision_map').notNullable().comment('JSON array of {assetSourceId, dataSignalService, dataSignalProperty}');
      t.json('decision_graph').notNullable().comment('JSON {defaultCreativeMaster, rulePriority, segments}; checked against the data-signal catalog on write');
      t.string('ad_id', 200).notNullable();
      t.string('ad_title', 200).notNullable().comment('The ad title; the campaign name unless the request named one');
      t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.datetime('updated_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.index(['account_id', 'campaign_id'], 'ix_dynamic_campaigns_account');
    });
  },
  async down(knex) {
    await knex.schema.dropTable('dynamic_campaigns');
  },
};
