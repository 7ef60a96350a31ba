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
  /** Relayed as soon as its transaction commits, not at the relay's next poll (a job request a worker waits for). */
  relayAtCommit?: boolean;
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
 * publishes `encoded` as is). `wakeRelay` (the process's outbox relay) is called once the transaction
 * of a `relayAtCommit` event has committed; a rolled back one wakes nothing. */
export function createEventOutbox(names: Naming, options: { wakeRelay?: () => void } = {}): EventOutbox {
  const { wakeRelay } = options;
  return {
    async record(trx, event) {
      await enqueueOutbox(trx, {
        subject: names.subject(event.subject),
        msgId: event.msgId,
        payload: event.encoded ?? Buffer.from(JSON.stringify(event.payload)),
      });
      if (event.relayAtCommit && wakeRelay) trx.executionPromise.then(wakeRelay, () => undefined);
    },
  };
}
