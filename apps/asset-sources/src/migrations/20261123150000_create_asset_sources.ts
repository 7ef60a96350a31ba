import type { Migration } from '@platform/mysql';

export const createAssetSources: Migration = {
  name: '20261123150000_create_asset_sources',
  async up(knex) {
    await knex.schema.createTable('asset_sources', (t) => {
      t.comment('Asset sources of accounts: their kind, columns, special columns and kind-specific settings');
      t.bigIncrements('asset_source_id').primary();
      t.bigInteger('account_id').notNullable();
      t.string('asset_source_type', 16).notNullable().comment('inline, remote, recommendation, motion-design or feed');
      t.string('asset_source_name', 200).notNullable();
      t.json('column_names').notNullable().comment('JSON array of the column names, in order');
      t.string('asset_key_column', 128).nullable();
      t.string('asset_variant_column', 128).nullable();
      t.string('asset_group_column', 128).nullable();
      t.string('reporting_column', 128).nullable();
      t.string('rotation_weight_column', 128).nullable().comment('Its values are numeric in every row');
      t.string('content_type', 8).nullable().comment('csv, json or xml');
      t.integer('row_count').notNullable().defaultTo(0).comment('Rows in asset_source_rows; kept with them in one transaction');
      t.string('remote_url', 2048).nullable().comment('Remote sources: the URL fetched on data read');
      t.string('remote_http_method', 4).nullable().comment('GET or POST');
      t.text('remote_additional_params').nullable().comment('Query string (GET) or form body (POST) of every fetch');
      t.integer('remote_cache_time').nullable().comment('Seconds a fetched copy is served before fetching again');
      t.datetime('rows_fetched_at', { precision: 3 }).nullable().comment('Remote sources: when the stored rows were fetched');
      t.bigInteger('source_asset_source_id').unsigned().nullable().comment('Recommendation sources: the source whose items they rank');
      t.integer('update_frequency').nullable().comment('Recommendation sources: hours between scheduled recomputations');
      t.json('recommendation_config').nullable().comment('Recommendation sources: type, maxRecommendations, cookieGroup, recommendationMap');
      t.datetime('computed_at', { precision: 3 }).nullable().comment('Recommendation sources: when their rows were last computed');
      t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.datetime('updated_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.index(['account_id', 'asset_source_id'], 'ix_asset_sources_account');
      t.index(['source_asset_source_id'], 'ix_asset_sources_recommendation_source');
      t.index(['asset_source_type', 'computed_at'], 'ix_asset_sources_type_computed');
    });
    await knex.schema.createTable('asset_source_rows', (t) => {
      t.comment('One row per data row of a source, numbered from 0 without gaps, so a page is an indexed range read');
      t.bigInteger('asset_source_id')
        .unsigned()
        .notNullable()
        .references('asset_source_id')
        .inTable('asset_sources')
        .onDelete('CASCADE')
        .withKeyName('fk_asset_source_rows_source');
      t.integer('ordinal').notNullable().comment('Position of the row in the source, 0-based and contiguous');
      t.string('key_value', 255).nullable().comment('The row value of the source asset key column (first 255 characters), for keyed lookups');
      t.specificType('row_json', 'MEDIUMTEXT').notNullable().comment('The row as a JSON object keyed by column name, handed on as text');
      t.primary(['asset_source_id', 'ordinal'], 'pk_asset_source_rows');
      t.index(['asset_source_id', 'key_value'], 'ix_asset_source_rows_key');
    });
    await knex.schema.createTable('asset_source_labels', (t) => {
      t.comment('Labels of asset sources');
      t.bigInteger('asset_source_id')
        .unsigned()
        .notNullable()
        .references('asset_source_id')
        .inTable('asset_sources')
        .onDelete('CASCADE')
        .withKeyName('fk_asset_source_labels_source');
      t.string('label', 128).notNullable().collate('utf8mb4_bin').comment('Compared exactly: labels differing in case are different labels');
      t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.primary(['asset_source_id', 'label'], 'pk_asset_source_labels');
    });
    await knex.schema.createTable('recommendation_events', (t) => {
      t.comment('Interactions of cookies with items, per account and cookieGroup, for collaborative and hybrid recommendations');
      t.bigIncrements('event_id').primary();
      t.bigInteger('account_id').notNullable();
      t.string('cookie_group', 128).notNullable();
      t.string('cookie_id', 256).notNullable();
      t.string('item_key', 255).notNullable();
      t.string('event_type', 64).notNullable().comment('As the caller names it (view, click, purchase, ...); every type counts once per cookie and item');
      t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.index(['account_id', 'cookie_group', 'cookie_id', 'item_key'], 'ix_recommendation_events_cookie');
    });
  },
  async down(knex) {
    await knex.schema.dropTable('recommendation_events');
    await knex.schema.dropTable('asset_source_labels');
    await knex.schema.dropTable('asset_source_rows');
    await knex.schema.dropTable('asset_sources');
  },
};
