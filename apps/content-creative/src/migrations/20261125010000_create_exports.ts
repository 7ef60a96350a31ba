import type { Migration } from '@platform/mysql';

export const createExports: Migration = {
  name: '20261125010000_create_exports',
  async up(knex) {
    await knex.schema.createTable('exports', (t) => {
      t.comment('Creative exports of retail campaigns: one row per export job, rendered by the export renderer into one zip');
      t.bigIncrements('export_id').primary();
      t.string('queue_id', 64).notNullable().comment('The job id: its queue in the queue view and its request message');
      t.bigInteger('account_id').notNullable();
      t.string('org_id', 64).notNullable().comment('Org of the caller who started it; the renderer acts for that account');
      t.bigInteger('retail_campaign_id').notNullable().comment('channels-plans retail campaign');
      t.string('campaign_name', 200).notNullable().comment('As it was when the export started; names the zip');
      t.bigInteger('template_idx').nullable().comment('The campaign retail template the creatives are drawn from');
      t.string('asset_export_type', 8).notNullable().comment('png, jpg, gif, tiff or mp4');
      t.tinyint('resolution').notNullable().comment('1 or 2: the scale of every file over its placement dimension');
      t.boolean('is_preview').notNullable().defaultTo(false);
      t.string('status', 16).notNullable().comment('INITIATED, PROCESSING, COMPLETED or FAILED');
      t.string('status_message', 2000).notNullable().defaultTo('');
      t.tinyint('running')
        .nullable()
        .comment('1 while INITIATED or PROCESSING, else NULL: the unique key on it allows one running export per format and resolution');
      t.string('object_path', 500).notNullable().comment('Where the zip goes, under accounts/<account_id>/');
      t.json('manifest').nullable().comment('manifest.json of the export, once it has ended');
      t.integer('total_items').notNullable().defaultTo(0);
      t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.datetime('updated_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.unique(['queue_id'], { indexName: 'ux_exports_queue' });
      t.unique(['account_id', 'retail_campaign_id', 'asset_export_type', 'resolution', 'is_preview', 'running'], { indexName: 'ux_exports_running' });
      t.index(['account_id', 'retail_campaign_id', 'asset_export_type', 'resolution', 'export_id'], 'ix_exports_campaign');
    });
  },
  async down(knex) {
    await knex.schema.dropTable('exports');
  },
};
