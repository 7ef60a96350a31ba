import type { Migration } from '@platform/mysql';

export const createStorageLibrary: Migration = {
  name: '20261123150000_create_storage_library',
  async up(knex) {
    await knex.schema.createTable('cloud_services', (t) => {
      t.comment('S3-compatible buckets of customers that an account registered; credentials sealed with SECRETS_ENCRYPTION_KEY');
      t.bigIncrements('id').primary();
      t.bigInteger('account_id').notNullable();
      t.string('name', 200).notNullable();
      t.string('service_type', 16).notNullable().comment('objstore');
      t.string('bucket', 63).notNullable();
      t.string('prefix', 512).notNullable().comment('Root folder inside the bucket, without slashes at either end; empty for the whole bucket');
      t.string('endpoint', 512).notNullable().comment('S3-compatible base URL; empty for AWS S3');
      t.string('region', 64).notNullable();
      t.specificType('sealed_credentials', 'VARBINARY(2048)').notNullable().comment('AES-256-GCM of {accessKey, secretKey}; never returned');
      t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.index(['account_id', 'id'], 'ix_cloud_services_account');
    });
    await knex.schema.createTable('queues', (t) => {
      t.comment('The queue view of every asynchronous job, folded from the progress events of the workers');
      t.string('queue_id', 36).primary();
      t.bigInteger('account_id').notNullable().comment('Only this account may read the queue');
      t.string('kind', 32).notNullable().comment('asset-upload, cloud-copy, feed-ingest, asset-export');
      t.string('status', 16).notNullable().comment('Queued, Processing, Completed or Failed');
      t.bigInteger('total_items').notNullable().defaultTo(0);
      t.bigInteger('total_processed').notNullable().defaultTo(0);
      t.string('message', 2000).notNullable().defaultTo('');
      t.bigInteger('sequence').notNullable().defaultTo(0).comment('Sequence of the last progress event applied; older ones are ignored');
      t.datetime('updated_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.index(['account_id'], 'ix_queues_account');
    });
  },
  async down(knex) {
    await knex.schema.dropTable('queues');
    await knex.schema.dropTable('cloud_services');
  },
};
