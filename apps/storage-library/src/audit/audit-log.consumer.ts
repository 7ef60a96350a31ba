import type { AuditChangeEvent } from '@contracts/domain';
import type { Logger } from '@platform/logging';
import { runConsumer, type ConsumerSpec, type Naming, type RunningConsumer } from '@platform/nats';
import { auditChangeConsumerSpec } from '@platform/service';
import type { NatsConnection } from 'nats';
import type { AuditLogService } from './audit-log.service';

export const AUDIT_LOG_DURABLE = 'storage-library-audit-log';

/** The durable consumer that folds the trail into audit_log. */
export const auditLogConsumerSpec = (durable = AUDIT_LOG_DURABLE): ConsumerSpec => auditChangeConsumerSpec(durable);

/** A message that is not an audit event cannot become one by redelivery: it fails to the dead letters. */
export function decodeAuditEvent(data: Uint8Array): AuditChangeEvent {
  const event = JSON.parse(Buffer.from(data).toString('utf8')) as Partial<AuditChangeEvent>;
  if (typeof event.id !== 'string' || typeof event.occurredAt !== 'string' || typeof event.actor?.keyId !== 'string' || typeof event.orgId !== 'string') {
    throw new Error('Not an audit.change event (id, occurredAt, actor.keyId and orgId are required)');
  }
  return event as AuditChangeEvent;
}

/**
 * Folds the audit events of every service into audit_log. Inserting is idempotent on the event id, so
 * a redelivery (a crash before the ack) or a republished outbox row leaves one entry.
 */
export async function startAuditLogConsumer(deps: {
  nats: NatsConnection;
  names: Naming;
  logger: Logger;
  auditLog: AuditLogService;
  durable?: string;
}): Promise<RunningConsumer> {
  return runConsumer({
    js: deps.nats.jetstream(),
    jsm: await deps.nats.jetstreamManager(),
    spec: deps.names.consumerSpec(auditLogConsumerSpec(deps.durable)),
    logger: deps.logger,
    fetchExpiresMs: 1_000,
    handler: async ({ data }) => {
      await deps.auditLog.apply(decodeAuditEvent(data));
    },
  });
}
