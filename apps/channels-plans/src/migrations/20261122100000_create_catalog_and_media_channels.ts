import type { Migration } from '@platform/mysql';

export const createCatalogAndMediaChannels: Migration = {
  name: '20261122100000_create_catalog_and_media_channels',
  async up(knex) {
    await knex.schema.createTable('ad_servers', (t) => {
      t.comment('Reference catalog of ad servers, seeded from code on every start');
      t.string('ad_server_id', 64).primary().comment('Stable id clients send as adServerId');
      t.string('ad_server_name', 200).notNullable();
      t.string('kind', 32).notNullable().comment('onsite-retail-media, display, video, social or dooh');
      t.string('logo_url', 500).notNullable();
    });
    await knex.schema.createTable('media_channels', (t) => {
      t.comment('Ad-server connections configured by a retailer organization');
      t.bigIncrements('idx').primary().comment('Public integer id (idx)');
      t.string('org_id', 64).notNullable().comment('Owning organization; every query filters by it');
      t.string('name', 200).notNullable();
      t.string('ad_server_id', 64).notNullable().references('ad_server_id').inTable('ad_servers').withKeyName('fk_media_channels_ad_server');
      t.string('type', 32).notNullable().comment('On-site, Off-site, Social, In-store/DOOH or Hybrid');
      t.string('status', 16).notNullable().defaultTo('Active').comment('Active or Inactive');
      t.boolean('tag_generation').notNullable();
      t.boolean('creative_generation').notNullable();
      t.json('additional_configuration').nullable().comment('Arbitrary channel settings as given by the client');
      t.binary('api_key_sealed', 512).nullable().comment('AES-256-GCM sealed API key of the on-site ad server connection');
      t.bigInteger('deleted_seq').unsigned().notNullable().defaultTo(0).comment('0 while live; the idx once deleted, freeing the name');
      t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.datetime('updated_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.datetime('deleted_at', { precision: 3 }).nullable().comment('Soft delete: template-campaign lists still show it as Deleted');
      t.unique(['org_id', 'name', 'deleted_seq'], { indexName: 'uq_media_channels_org_live_name' });
      t.index(['org_id', 'deleted_seq', 'idx'], 'ix_media_channels_org_live');
    });
  },
  async down(knex) {
    await knex.schema.dropTable('media_channels');
    await knex.schema.dropTable('ad_servers');
  },
};
