import type { Knex } from 'knex';
import { enqueueOutbox, type Naming } from '@platform/nats';

/** A domain event as a service states it: subject without NATS_PREFIX, JSON-serializable payload. */
export interface DomainEvent {
  subject: string;
  /** Names this one event; JetStream and the outbox drop a second copy with the same id. */
  msgId: string;
  payload: unknown;
}

/**
 * Records events in the transaction of the change they describe; the outbox relay publishes them
 * after commit. Services depend on this rather than on the outbox table, so a test can hand them
 * any recorder.
 */
export interface EventOutbox {
  record(trx: Knex.Transaction, event: DomainEvent): Promise<void>;
}

/** The recorder a service gets: applies the process's NATS_PREFIX and serializes the payload as JSON. */
export function createEventOutbox(names: Naming): EventOutbox {
  return {
    record: (trx, event) =>
      enqueueOutbox(trx, { subject: names.subject(event.subject), msgId: event.msgId, payload: Buffer.from(JSON.stringify(event.payload)) }),
  };
}
