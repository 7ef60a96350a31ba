import type { Migration } from '@platform/mysql';

export const createTrackers: Migration = {
  name: '20261123170000_create_trackers',
  async up(knex) {
    await knex.schema.createTable('trackers', (t) => {
      t.comment('Third-party trackers of placements of media plans, one row per value of a tracker field');
      t.bigIncrements('tracker_id').primary();
      t.bigInteger('account_id').notNullable();
      t.bigInteger('campaign_id').notNullable().comment('Retail campaign of the media plan');
      t.bigInteger('media_plan_id').notNullable();
      t.bigInteger('site_idx').notNullable();
      t.bigInteger('placement_id').notNullable();
      t.string('tracker_type', 64).notNullable().comment('The update field the value came in (primaryClickTracker, ...)');
      t.string('value', 2048).notNullable().comment('A checked http(s) URL or script elements');
      t.binary('value_hash', 32).notNullable().comment('SHA-256 of value: the same value is stored once per placement and field');
      t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.unique(['account_id', 'media_plan_id', 'placement_id', 'tracker_type', 'value_hash'], { indexName: 'ux_trackers_value' });
      t.index(['account_id', 'campaign_id', 'tracker_type'], 'ix_trackers_campaign_type');
    });
  },
  async down(knex) {
    await knex.schema.dropTable('trackers');
  },
};
