import type { Migration } from '@platform/mysql';

export const createWebhooks: Migration = {
  name: '20261128120000_create_webhooks',
  async up(knex) {
    await knex.schema.createTable('webhooks', (t) => {
      t.comment('Job-notification webhooks of an account, the signing secret sealed with SECRETS_ENCRYPTION_KEY');
      t.bigIncrements('id').primary();
      t.bigInteger('account_id').notNullable();
      t.string('url', 2048).notNullable().comment('http(s) URL the events are POSTed to, through the outbound fetch guard');
      t.string('events', 512).notNullable().comment('Job kinds, comma-separated, or * for every kind');
      t.string('description', 500).notNullable().defaultTo('');
      t.boolean('enabled').notNullable().defaultTo(true);
      t.specificType('sealed_secret', 'VARBINARY(256)').notNullable().comment('AES-256-GCM of the signing secret; answered at create only');
      t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.datetime('updated_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.index(['account_id', 'id'], 'ix_webhooks_account');
    });
    await knex.schema.createTable('webhook_deliveries', (t) => {
      t.comment('One event to POST to one webhook, written in the transaction of the status change of its job; retried with backoff');
      t.bigIncrements('id').primary();
      t.bigInteger('webhook_id').notNullable();
      t.bigInteger('account_id').notNullable();
      t.string('event_id', 64).notNullable().comment('<queueId>:<status>: one event per status a job reaches');
      t.string('dedupe_key', 64).nullable().comment('event_id for an original, NULL for a replay: a repeated status change writes no second delivery');
      t.string('queue_id', 36).notNullable();
      t.string('kind', 32).notNullable();
      t.string('job_status', 16).notNullable().comment('Queued, Processing, Completed or Failed');
      t.bigInteger('total_items').notNullable().defaultTo(0);
      t.bigInteger('total_processed').notNullable().defaultTo(0);
      t.string('message', 2000).notNullable().defaultTo('');
      t.datetime('occurred_at', { precision: 3 }).notNullable().comment('When the job reached the status');
      t.string('status', 16).notNullable().comment('pending, retrying, succeeded or failed');
      t.integer('attempts').notNullable().defaultTo(0).comment('Attempts started; a claim counts one before the POST');
      t.integer('last_http_status').nullable();
      t.string('last_error', 500).nullable();
      t.datetime('next_attempt_at', { precision: 3 }).nullable().comment('Due time while pending or retrying; a claim pushes it past the attempt (a lease)');
      t.bigInteger('replay_of').nullable().comment('The delivery this one sends again');
      t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.datetime('updated_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.unique(['webhook_id', 'dedupe_key'], { indexName: 'ux_webhook_deliveries_event' });
      t.index(['webhook_id', 'id'], 'ix_webhook_deliveries_webhook');
      t.index(['status', 'next_attempt_at'], 'ix_webhook_deliveries_due');
    });
    await knex.schema.createTable('webhook_delivery_attempts', (t) => {
      t.comment('The delivery log: the outcome of every attempt');
      t.bigIncrements('id').primary();
      t.bigInteger('delivery_id').notNullable();
      t.integer('attempt').notNullable();
      t.integer('http_status').nullable().comment('NULL when no HTTP answer came (refused, timed out, unreachable)');
      t.string('error', 500).nullable();
      t.integer('duration_ms').notNullable();
      t.datetime('attempted_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.index(['delivery_id', 'attempt'], 'ix_webhook_delivery_attempts_delivery');
    });
  },
  async down(knex) {
    await knex.schema.dropTable('webhook_delivery_attempts');
    await knex.schema.dropTable('webhook_deliveries');
    await knex.schema.dropTable('webhooks');
  },
};
