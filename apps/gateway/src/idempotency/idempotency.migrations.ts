import type { Migration } from '@platform/mysql';

export const createIdempotentRequests: Migration = {
  name: '20261125003000_create_idempotent_requests',
  async up(knex) {
    await knex.schema.createTable('idempotent_requests', (t) => {
      t.comment('Writes sent with an Idempotency-Key: the claim while the first runs, then its answer for replays');
      t.string('tenant', 100).notNullable().comment('account:<id>, org:<id>, key:<keyId> (routes of no tenant) or admin');
      t.string('operation', 100).notNullable().comment('operationId of the route');
      t.string('idempotency_key', 255).notNullable();
      t.binary('request_sha256', 32).notNullable().comment('SHA-256 of the canonical request; another body under the same key is refused');
      t.smallint('status').unsigned().nullable().comment('Status of the stored answer; NULL while the first request runs');
      t.text('headers').nullable().comment('JSON object of the answer headers that are replayed (Location, Content-Type, ...)');
      t.specificType('body', 'MEDIUMBLOB').nullable();
      t.datetime('lease_until', { precision: 3 }).notNullable().comment('A running claim older than this is taken over (its gateway died)');
      t.datetime('expires_at', { precision: 3 }).notNullable().comment('The key is forgotten after this');
      t.primary(['tenant', 'operation', 'idempotency_key'], 'pk_idempotent_requests');
      t.index(['expires_at'], 'ix_idempotent_requests_expires');
    });
  },
  async down(knex) {
    await knex.schema.dropTable('idempotent_requests');
  },
};
