import type { Knex } from 'knex';

export const OUTBOX_TABLE = 'outbox';

/** A row of the outbox table as the relay reads it. */
export interface OutboxRow {
  id: number;
  subject: string;
  msg_id: string;
  payload: Buffer;
  attempts: number;
  /** JSON object of the NATS headers to publish with it (trace context, request id); null when none. */
  headers: string | null;
}

/**
 * Creates the transactional outbox in the owning service's schema. Shaped like the migrations of
 * @platform/mysql (`{name, up, down}`) without depending on it: services list it with their own.
 */
export const outboxMigration = {
  name: '20261122000000_create_outbox',
  async up(knex: Knex): Promise<void> {
    await knex.schema.createTable(OUTBOX_TABLE, (table) => {
      table.comment('Events written in the same transaction as the change they describe; relayed to NATS JetStream');
      table.bigIncrements('id').comment('Relay order: events leave in the order they were written');
      table.string('subject', 255).notNullable().comment('Full JetStream subject, NATS_PREFIX included');
      table.string('msg_id', 255).notNullable().comment('Nats-Msg-Id; JetStream drops a re-relayed duplicate by it');
      table.specificType('payload', 'mediumblob').notNullable().comment('Message body as published (protobuf)');
      table.datetime('created_at', { precision: 3 }).notNullable().defaultTo(knex.fn.now(3)).comment('When the producing transaction wrote the event');
      table.datetime('published_at', { precision: 3 }).nullable().comment('When JetStream acknowledged it; NULL while pending');
      table.integer('attempts').unsigned().notNullable().defaultTo(0).comment('Failed relay attempts so far');
      table.datetime('next_attempt_at', { precision: 3 }).nullable().comment('Earliest retry after a failure; NULL means now');
      table.string('last_error', 1024).nullable().comment('Why the last relay attempt failed, for operators');
      table.unique(['msg_id'], { indexName: 'outbox_msg_id_unique' });
      table.index(['published_at', 'id'], 'outbox_published_at_id_index');
    });
  },
  async down(knex: Knex): Promise<void> {
    await knex.schema.dropTableIfExists(OUTBOX_TABLE);
  },
};

/**
 * The headers the relay publishes with an event: the trace context and request id of the work that
 * wrote it, so a consumer (a worker running a job) continues the same trace and names the same request.
 */
export const outboxHeadersMigration = {
  name: '20261125000000_outbox_headers',
  async up(knex: Knex): Promise<void> {
    await knex.schema.alterTable(OUTBOX_TABLE, (table) => {
      table.text('headers').nullable().comment('JSON object of NATS headers published with the event (traceparent, x-request-id); never a secret');
    });
  },
  async down(knex: Knex): Promise<void> {
    await knex.schema.alterTable(OUTBOX_TABLE, (table) => {
      table.dropColumn('headers');
    });
  },
};

/** The outbox's migrations, in order; a service lists them before its own. */
export const OUTBOX_MIGRATIONS = [outboxMigration, outboxHeadersMigration] as const;
