import type { Migration } from '@platform/mysql';

export const createAuditLog: Migration = {
  name: '20261128120000_create_audit_log',
  async up(knex) {
    await knex.schema.createTable('audit_log', (t) => {
      t.comment('The audit trail: every audit.change event of every service, folded once per event id');
      t.string('id', 36).primary().comment('The event id (a UUID); a redelivered event is inserted once');
      t.datetime('occurred_at', { precision: 3 }).notNullable().comment('When the change was recorded, UTC');
      t.string('actor_type', 16).notNullable().comment('api-key or worker');
      t.string('actor_key_id', 128).notNullable();
      t.string('actor_user_id', 64).nullable();
      t.string('action', 8).notNullable().comment('create, update or delete');
      t.string('resource_type', 32).notNullable();
      t.string('resource_id', 1024).notNullable().comment('An asset-library path can be long; ids of records are numbers');
      t.string('org_id', 64).notNullable();
      t.bigInteger('account_id').nullable().comment('Null for resources of the org (media channels)');
      t.string('request_id', 128).nullable().comment('X-Request-Id of the write');
      t.string('operation', 128).notNullable().comment('The gRPC method that made the change');
      t.json('before_json').nullable().comment('The record before the change, secrets redacted');
      t.json('after_json').nullable().comment('The record after the change, secrets redacted');
      t.json('changed_fields').notNullable();
      t.index(['account_id', 'occurred_at'], 'ix_audit_log_account');
      t.index(['org_id', 'account_id', 'occurred_at'], 'ix_audit_log_org');
      t.index(['request_id'], 'ix_audit_log_request');
    });
  },
  async down(knex) {
    await knex.schema.dropTable('audit_log');
  },
};
