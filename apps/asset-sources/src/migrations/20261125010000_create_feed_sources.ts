import type { Migration } from '@platform/mysql';

/**
 * Feed sources: where each feed is read from and how (credentials sealed), its schedule and policies;
 * one row per ingestion run (its queue id) with the run's health counts, and every entry of its health
 * report; the rows a run stages until the whole feed has parsed (then swapped in, in one transaction);
 * and the rows the `disable` policy keeps aside.
 */
export const createFeedSources: Migration = {
  name: '20261125010000_create_feed_sources',
  async up(knex) {
    await knex.schema.createTable('feed_sources', (t) => {
      t.comment('Feed settings of asset sources of type feed: location, format, schedule, policies and the version serving');
      t.bigInteger('asset_source_id')
        .unsigned()
        .primary()
        .references('asset_source_id')
        .inTable('asset_sources')
        .onDelete('CASCADE')
        .withKeyName('fk_feed_sources_source');
      t.string('url_type', 8).notNullable().comment('https, http, objstore, ftp or sftp');
      t.string('url', 2048).notNullable().defaultTo('');
      t.json('url_config').notNullable().comment('urlConfig without its secrets: additionalParams, httpMethod, portNumber');
      t.binary('sealed_credentials', 32_768).nullable().comment('username, password, accessKey, secretKey, privateKey as JSON, sealed (AES-256-GCM)');
      t.string('file_id', 512).nullable().comment('An asset-library file read instead of url');
      t.string('content_type', 8).notNullable().comment('csv, json or xml');
      t.string('character_encoding', 16).notNullable();
      t.string('csv_separator', 8).notNullable();
      t.boolean('first_row_is_header').notNullable().defaultTo(true);
      t.boolean('cdp').notNullable().defaultTo(false);
      t.specificType('custom_code', 'MEDIUMTEXT').nullable().comment('JavaScript run over each row when cdp is true');
      t.json('feed_config').nullable().comment('The config answered by process, when the source was created from it');
      t.boolean('is_scheduled').notNullable().defaultTo(false);
      t.string('frequency', 8).nullable().comment('HOURLY, DAILY or WEEKLY');
      t.string('start_time', 5).nullable().comment('hh:mm, US Eastern');
      t.date('end_date').nullable().comment('Last day (US Eastern) a scheduled run starts');
      t.datetime('next_run_at', { precision: 3 }).nullable().comment('UTC; claimed by one replica when due');
      t.string('missing_row_policy', 8).notNullable().defaultTo('delete').comment('delete, disable or keep');
      t.integer('shrink_guard_percent').notNullable().defaultTo(50).comment('A new version with more than this share fewer rows (or none) is held');
      t.string('held_queue_id', 36).nullable().comment('The run whose version the shrink guard holds, until confirmed');
      t.string('held_reason', 1000).nullable();
      t.string('applied_queue_id', 36).nullable().comment('The run whose rows are serving');
      t.string('applied_etag', 512).nullable();
      t.string('applied_last_modified', 128).nullable();
      t.string('applied_content_hash', 64).nullable().comment('sha256 hex of the bytes of the version serving');
      t.index(['is_scheduled', 'next_run_at'], 'ix_feed_sources_due');
    });
    await knex.schema.createTable('feed_runs', (t) => {
      t.comment('One ingestion run of a feed source (its queue id) and its health counts');
      t.string('queue_id', 36).primary();
      t.bigInteger('asset_source_id')
        .unsigned()
        .notNullable()
        .references('asset_source_id')
        .inTable('asset_sources')
        .onDelete('CASCADE')
        .withKeyName('fk_feed_runs_source');
      t.bigInteger('account_id').notNullable();
      t.string('run_trigger', 16).notNullable().comment('create, update or schedule');
      t.string('status', 16).notNullable().comment('Queued, Processing, Completed, Skipped, Held or Failed');
      t.string('message', 2000).notNullable().defaultTo('');
      t.integer('rows_read').notNullable().defaultTo(0).comment('Rows the feed held, rejected ones included');
      t.integer('rows_stored').notNullable().defaultTo(0);
      t.integer('duplicate_keys').notNullable().defaultTo(0).comment('Rows whose key (and variant) an earlier row already had');
      t.integer('empty_keys').notNullable().defaultTo(0).comment('Rows without a value in the asset key column');
      t.integer('rejected_rows').notNullable().defaultTo(0);
      t.string('etag', 512).nullable();
      t.string('last_modified', 128).nullable();
      t.string('content_hash', 64).nullable();
      t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.datetime('finished_at', { precision: 3 }).nullable();
      t.index(['asset_source_id', 'created_at'], 'ix_feed_runs_source');
    });
    await knex.schema.createTable('feed_report_entries', (t) => {
      t.comment('Every entry of a run health report: rejected rows, duplicate keys and empty keys, with their feed line');
      t.string('queue_id', 36).notNullable().references('queue_id').inTable('feed_runs').onDelete('CASCADE').withKeyName('fk_feed_report_entries_run');
      t.integer('seq').notNullable().comment('Entry order, from 0');
      t.integer('line').notNullable().comment('Where the row starts in the feed, 1-based');
      t.string('kind', 16).notNullable().comment('rejected, duplicate-key or empty-key');
      t.string('key_value', 255).nullable();
      t.string('reason', 1000).notNullable();
      t.primary(['queue_id', 'seq'], 'pk_feed_report_entries');
      t.index(['queue_id', 'line', 'seq'], 'ix_feed_report_entries_line');
    });
    await knex.schema.createTable('feed_staged_rows', (t) => {
      t.comment('Rows of a run being read; swapped into asset_source_rows in one transaction once the whole feed has parsed');
      t.string('queue_id', 36).notNullable();
      t.integer('ordinal').notNullable();
      t.integer('line').notNullable();
      t.string('key_value', 255).nullable();
      t.specificType('row_json', 'MEDIUMTEXT').notNullable();
      t.primary(['queue_id', 'ordinal'], 'pk_feed_staged_rows');
      t.index(['queue_id', 'key_value'], 'ix_feed_staged_rows_key');
    });
    await knex.schema.createTable('feed_disabled_rows', (t) => {
      t.comment('Rows gone from a feed whose source disables missing rows: kept, never served or mapped, restored when their key returns');
      t.bigInteger('asset_source_id')
        .unsigned()
        .notNullable()
        .references('asset_source_id')
        .inTable('asset_sources')
        .onDelete('CASCADE')
        .withKeyName('fk_feed_disabled_rows_source');
      t.string('key_value', 255).notNullable();
      t.specificType('row_json', 'MEDIUMTEXT').notNullable();
      t.datetime('disabled_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.primary(['asset_source_id', 'key_value'], 'pk_feed_disabled_rows');
    });
  },
  async down(knex) {
    await knex.schema.dropTable('feed_disabled_rows');
    await knex.schema.dropTable('feed_staged_rows');
    await knex.schema.dropTable('feed_report_entries');
    await knex.schema.dropTable('feed_runs');
    await knex.schema.dropTable('feed_sources');
  },
};
