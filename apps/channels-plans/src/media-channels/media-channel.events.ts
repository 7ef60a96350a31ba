import type { Knex } from 'knex';

export type MediaChannelEventType = 'created' | 'updated' | 'deleted';

/**
 * Records a domain event in the same transaction as the change it describes; the outbox relay
 * publishes it afterwards. Payloads carry ids only: never configuration or keys.
 */
export interface DomainEventRecorder {
  record(trx: Knex.Transaction, event: { subject: string; msgId: string; payload: Record<string, unknown> }): Promise<void>;
}

export function mediaChannelEvent(type: MediaChannelEventType, orgId: string, idx: number) {
  return {
    subject: `channels-plans.media-channel.${type}`,
    msgId: `media-channel:${idx}:${type}:${Date.now()}`,
    payload: { type: `media-channel.${type}`, orgId, idx, occurredAt: new Date().toISOString() },
  };
}
