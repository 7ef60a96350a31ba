import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';

export type MediaChannelEventType = 'created' | 'updated' | 'deleted';

/**
 * Records a domain event in the same transaction as the change it describes; the outbox relay
 * publishes it afterwards. Payloads carry ids only: never configuration or keys.
 */
export interface DomainEventRecorder {
  record(trx: Knex.Transaction, event: { subject: string; msgId: string; payload: Record<string, unknown> }): Promise<void>;
}

/**
 * The msgId names this one event: unique per change (a clock would repeat within a millisecond, and
 * the outbox and JetStream would then refuse or drop the second change's event), and fixed once in
 * the outbox row, so a relay that publishes the row twice is deduplicated.
 */
export function mediaChannelEvent(type: MediaChannelEventType, orgId: string, idx: number) {
  return {
    subject: `channels-plans.media-channel.${type}`,
    msgId: `media-channel:${idx}:${type}:${randomUUID()}`,
    payload: { type: `media-channel.${type}`, orgId, idx, occurredAt: new Date().toISOString() },
  };
}
