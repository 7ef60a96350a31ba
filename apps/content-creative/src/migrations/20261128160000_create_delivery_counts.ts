import type { Migration } from '@platform/mysql';

const COUNTS = [
  ['impressions', 'Impressions'],
  ['clicks', 'Clicks'],
  ['starts', 'Video starts'],
  ['first_quartile', 'Video first quartiles'],
  ['midpoint', 'Video midpoints'],
  ['third_quartile', 'Video third quartiles'],
  ['completes', 'Video completes'],
  ['mutes', 'Video mutes'],
  ['unmutes', 'Video unmutes'],
  ['skips', 'Video skips'],
] as const;

/** Compared as written: creatives and segments that differ in case are different ones. */
const BINARY_TEXT = 'VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin';

/** The ad server's delivery events folded into daily counts, and the event ids already folded. */
export const createDeliveryCounts: Migration = {
  name: '20261128160000_create_delivery_counts',
  async up(knex) {
    await knex.schema.createTable('delivery_daily_counts', (t) => {
      t.comment('Delivery of retail campaigns per UTC day, placement, creative and segment, folded from the delivery events');
      t.bigInteger('account_id').notNullable();
      t.bigInteger('retail_campaign_id').notNullable().comment('channels-plans retail campaign');
      t.date('day').notNullable().comment('UTC date the events occurred on');
      t.bigInteger('placement_id').notNullable().comment('channels-plans placement');
      t.bigInteger('media_plan_id').notNullable().comment('channels-plans media plan of the placement');
      t.specificType('creative', BINARY_TEXT).notNullable().comment('The content value or creative master served');
      t.specificType('segment', BINARY_TEXT).notNullable().comment('The decision graph segment served, or (default)');
      for (const [column, comment] of COUNTS) t.bigInteger(column).unsigned().notNullable().defaultTo(0).comment(comment);
      t.primary(['account_id', 'retail_campaign_id', 'day', 'placement_id', 'media_plan_id', 'creative', 'segment'], 'pk_delivery_daily_counts');
    });
    await knex.schema.createTable('delivery_events_seen', (t) => {
      t.comment('Ids of the delivery events already counted, so a redelivered event counts once; purged past the stream age');
      t.specificType('event_id', 'VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin').notNullable();
      t.bigInteger('batch_id').notNullable().comment('The fold that counted it: which ids of a batch were new');
      t.datetime('seen_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.primary(['event_id'], 'pk_delivery_events_seen');
      t.index(['seen_at'], 'ix_delivery_events_seen_at');
    });
  },
  async down(knex) {
    await knex.schema.dropTable('delivery_events_seen');
    await knex.schema.dropTable('delivery_daily_counts');
  },
};
