import type { Knex } from 'knex';
import { hopHeaders } from './nats.hop-headers';
import { OUTBOX_TABLE } from './outbox.migration';

export interface OutboxMessage {
  /** Full subject, prefix applied (`naming(prefix).subject(...)`). */
  subject: string;
  /** Identifies the fact, so a second enqueue of the same event fails instead of publishing twice. */
  msgId: string;
  payload: Uint8Array;
}

/**
 * Records an event inside the caller's transaction: it becomes visible to the relay exactly when
 * the change it describes commits, and vanishes with it on rollback. That is the whole point, so a
 * plain connection (auto-commit) is refused. The trace context and request id of the work that
 * records it are kept with it, for the relay to publish as headers.
 */
export async function enqueueOutbox(trx: Knex.Transaction, { subject, msgId, payload }: OutboxMessage): Promise<void> {
  if (!trx.isTransaction) throw new Error('enqueueOutbox must be called inside the transaction that makes the change');
  if (!subject || !msgId) throw new Error('enqueueOutbox: subject and msgId are required');
  await trx(OUTBOX_TABLE).insert({
    subject,
    msg_id: msgId,
    payload: Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength),
    headers: hopHeaders(),
  });
}
