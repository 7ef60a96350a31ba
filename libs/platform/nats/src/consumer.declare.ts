import { AckPolicy, DeliverPolicy, nanos, type ConsumerConfig, type ConsumerInfo, type JetStreamManager } from 'nats';
import { hasJsErrorCode, JsErrorCode } from './nats.api-errors';

/**
 * A durable pull consumer as the code that owns it declares it. Stream and subjects are given
 * without NATS_PREFIX; apply `naming(prefix).consumerSpec(spec)` before ensuring it.
 */
export interface ConsumerSpec {
  stream: string;
  durable: string;
  filterSubject: string;
  /** Deliveries the handler gets; a message still failing after this many is dead-lettered. */
  maxDeliver: number;
  /** Time a delivery may stay unacknowledged before JetStream redelivers it. */
  ackWaitMs: number;
  /** Where dead letters go; some stream must capture it (see DEAD_LETTER_STREAM). */
  deadLetterSubject: string;
}

/**
 * Deliveries beyond maxDeliver that the server still allows. They are never given to the handler:
 * they exist so that a dead-letter publish that failed (or a crash after the last handler attempt)
 * gets retried instead of the message silently stopping at the server's limit.
 */
export const DEAD_LETTER_SPARE_DELIVERIES = 3;

/** Creates the durable consumer or brings an existing one to the spec; idempotent. */
export async function ensureConsumer(jsm: JetStreamManager, spec: ConsumerSpec): Promise<ConsumerInfo> {
  if (!Number.isInteger(spec.maxDeliver) || spec.maxDeliver < 1) {
    throw new Error(`Consumer ${spec.stream}/${spec.durable}: maxDeliver must be a positive integer`);
  }
  const managed = {
    filter_subject: spec.filterSubject,
    ack_wait: nanos(spec.ackWaitMs),
    max_deliver: spec.maxDeliver + DEAD_LETTER_SPARE_DELIVERIES,
  } satisfies Partial<ConsumerConfig>;

  const existing = await consumerInfoOrUndefined(jsm, spec.stream, spec.durable);
  if (!existing) {
    try {
      return await jsm.consumers.add(spec.stream, {
        durable_name: spec.durable,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ...managed,
      });
    } catch (err) {
      // Another instance of the same service may have created it a moment ago.
      const created = await consumerInfoOrUndefined(jsm, spec.stream, spec.durable);
      if (!created) throw err;
      return updateIfChanged(jsm, spec, created, managed);
    }
  }
  return updateIfChanged(jsm, spec, existing, managed);
}

type ManagedConsumerFields = Required<Pick<ConsumerConfig, 'filter_subject' | 'ack_wait' | 'max_deliver'>>;

async function updateIfChanged(jsm: JetStreamManager, spec: ConsumerSpec, existing: ConsumerInfo, managed: ManagedConsumerFields): Promise<ConsumerInfo> {
  const current = existing.config;
  if (current.ack_policy !== AckPolicy.Explicit) {
    throw new Error(`Consumer ${spec.stream}/${spec.durable} exists with ack policy ${current.ack_policy}; delete it to redeclare`);
  }
  const unchanged = current.filter_subject === managed.filter_subject && current.ack_wait === managed.ack_wait && current.max_deliver === managed.max_deliver;
  if (unchanged) return existing;
  return jsm.consumers.update(spec.stream, spec.durable, managed);
}

async function consumerInfoOrUndefined(jsm: JetStreamManager, stream: string, durable: string): Promise<ConsumerInfo | undefined> {
  try {
    return await jsm.consumers.info(stream, durable);
  } catch (err) {
    if (hasJsErrorCode(err, JsErrorCode.ConsumerNotFound)) return undefined;
    throw err;
  }
}
