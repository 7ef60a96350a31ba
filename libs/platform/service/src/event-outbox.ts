import type { Knex } from 'knex';
import { enqueueOutbox, type Naming } from '@platform/nats';

/** A domain event as a service states it: subject without NATS_PREFIX, JSON-serializable payload. */
export interface DomainEvent {
  subject: string;
  /** Names this one event; JetStream and the outbox drop a second copy with the same id. */
  msgId: string;
  payload: unknown;
  /** When set, published as these bytes (a protobuf message such as a job's progress) instead of `payload` as JSON. */
  encoded?: Uint8Array;
}

/**
 * Records events in the transaction of the change they describe; the outbox relay publishes them
 * after commit. Services depend on this rather than on the outbox table, so a test can hand them
 * any recorder.
 */
export interface EventOutbox {
  record(trx: Knex.Transaction, event: DomainEvent): Promise<void>;
}

/** The recorder a service gets: applies the process's NATS_PREFIX and serializes the payload as JSON (or
 * publishes `encoded` as is). */
export function createEventOutbox(names: Naming): EventOutbox {
  return {
    record: (trx, event) =>
      enqueueOutbox(trx, { subject: names.subject(event.subject), msgId: event.msgId, payload: event.encoded ?? Buffer.from(JSON.stringify(event.payload)) }),
  };
}
