import type { Migration } from '@platform/mysql';

export const createTagVariableMapsAndTagMetadata: Migration = {
  name: '20261123160000_create_tag_variable_maps_and_tag_metadata',
  async up(knex) {
    await knex.schema.createTable('tag_variable_maps', (t) => {
      t.comment('Per campaign and ad server: which macro of the ad server carries a data signal into its tags');
      t.bigIncrements('idx').primary();
      t.bigInteger('account_id').notNullable();
      t.bigInteger('campaign_id').notNullable().comment('Retail campaign (channels-plans) the map belongs to');
      t.string('ad_server_id', 64).notNullable().comment('Ad server of the channels-plans catalog');
      t.string('data_signal', 100).notNullable().comment('Compared case-insensitively: one macro per signal and ad server');
      t.string('macro_name', 100).notNullable().comment('In the ad server macro syntax, inserted verbatim into tags');
      t.json('ad_server_params').notNullable().comment('JSON object as given');
      t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.datetime('updated_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.unique(['account_id', 'campaign_id', 'ad_server_id', 'data_signal'], { indexName: 'ux_tag_variable_maps_signal' });
    });
    await knex.schema.createTable('tag_metadata', (t) => {
      t.comment('Every single tag generated; the current one per placement and kind is what the tag CSV lists');
      t.bigIncrements('tag_metadata_id').primary();
      t.bigInteger('account_id').notNullable();
      t.bigInteger('campaign_id').notNullable().comment('Retail campaign of the media plan');
      t.bigInteger('media_plan_id').notNullable();
      t.bigInteger('placement_id').notNullable();
      t.string('placement_name', 200).notNullable().comment('As the plan named it when the tag was generated');
      t.string('site_name', 200).notNullable();
      t.string('dimension', 11).notNullable();
      t.string('ad_server_id', 64).notNullable();
      t.string('kind', 32).notNullable().comment('rich-media, video/in-stream, video/in-banner, video/mobile/in-web or native');
      t.json('options').notNullable().comment('The generation request (JSON object), kept to explain the tag');
      t.specificType('tag_value', 'MEDIUMTEXT').notNullable();
      t.boolean('is_current').notNullable().defaultTo(true).comment('False once a newer tag of the same placement and kind exists');
      t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.index(['account_id', 'campaign_id', 'is_current', 'tag_metadata_id'], 'ix_tag_metadata_campaign_current');
      t.index(['account_id', 'media_plan_id', 'placement_id', 'kind'], 'ix_tag_metadata_placement');
    });
  },
  async down(knex) {
    await knex.schema.dropTable('tag_metadata');
    await knex.schema.dropTable('tag_variable_maps');
  },
};
