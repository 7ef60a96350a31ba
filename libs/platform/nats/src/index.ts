/**
 * NATS JetStream the way every service uses it (docs/architecture.md, "Internals"): streams and durable pull
 * consumers declared in code under a NATS_PREFIX, Nats-Msg-Id on every publish, explicit ack after
 * the side effect, bounded redelivery ending in a dead-letter subject, and a transactional outbox
 * so a DB write and the event it implies never split. Delivery is at least once: handlers must be
 * idempotent.
 */
export { connectNats, pingNats, closeNats, redactUrl, type ConnectNatsOptions } from './nats.connection';
export { naming, type Naming } from './nats.naming';
export { ensureStream, DEFAULT_DUPLICATE_WINDOW_MS, type StreamSpec } from './stream.declare';
export { ensureConsumer, DEAD_LETTER_SPARE_DELIVERIES, type ConsumerSpec } from './consumer.declare';
export { DEAD_LETTER_STREAM, DeadLetterHeader, deadLetterSubjectFor, deadLetterHeaders, deadLetterMsgId, type DeadLetterFacts } from './consumer.dead-letter';
export { publish, type PublishOptions } from './nats.publish';
export { HandBack, runConsumer, type ConsumedMessage, type MessageHandler, type RunConsumerOptions, type RunningConsumer } from './consumer.runner';
export { backoffDelay, type BackoffOptions } from './nats.backoff';
export { outboxMigration, outboxHeadersMigration, OUTBOX_MIGRATIONS, OUTBOX_TABLE } from './outbox.migration';
export { hopContext, type HopContext } from './nats.hop-headers';
export { enqueueOutbox, type OutboxMessage } from './outbox.enqueue';
export { startOutboxRelay, type OutboxRelay, type OutboxRelayOptions } from './outbox.relay';
export { broadcastConfirmed, settlesWithin, type BroadcastConnection } from './nats.broadcast';
export { openKeyValue, putLargeValue, readLargeValue, deleteLargeValue, KV_PART_BYTES } from './key-value';
