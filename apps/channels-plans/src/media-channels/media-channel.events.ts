import { randomUUID } from 'node:crypto';
import { mediaChannelEventSubject, type MediaChannelEventPayload, type MediaChannelEventType } from '@contracts/domain';
import type { DomainEvent } from '@platform/service';

/**
 * The event of one media-channel change; payloads carry ids only, never configuration or keys.
 * The msgId names this one event: unique per change (a clock would repeat within a millisecond, and
 * the outbox and JetStream would then refuse or drop the second change's event), and fixed once in
 * the outbox row, so a relay that publishes the row twice is deduplicated.
 */
export function mediaChannelEvent(type: MediaChannelEventType, orgId: string, idx: number): DomainEvent & { payload: MediaChannelEventPayload } {
  return {
    subject: mediaChannelEventSubject(type),
    msgId: `media-channel:${idx}:${type}:${randomUUID()}`,
    payload: { type: `media-channel.${type}`, orgId, idx, occurredAt: new Date().toISOString() },
  };
}
