import type { Logger } from '@platform/logging';
import { decodeJobProgress, jobProgressConsumerSpec } from '@platform/jobs';
import { runConsumer, type Naming, type RunningConsumer } from '@platform/nats';
import type { NatsConnection } from 'nats';
import type { QueueService } from './queue.service';

export const QUEUE_VIEW_DURABLE = 'storage-library-queue-view';

/**
 * The durable consumer that keeps the queue view: every worker's progress events, of every job kind,
 * folded into the queues table. Folding is idempotent (sequence check), so redeliveries are harmless.
 */
export async function startQueueViewConsumer(deps: { nats: NatsConnection; names: Naming; logger: Logger; queues: QueueService }): Promise<RunningConsumer> {
  return runConsumer({
    js: deps.nats.jetstream(),
    jsm: await deps.nats.jetstreamManager(),
    spec: deps.names.consumerSpec(jobProgressConsumerSpec(QUEUE_VIEW_DURABLE)),
    logger: deps.logger,
    fetchExpiresMs: 1_000,
    handler: async ({ data }) => deps.queues.apply(decodeJobProgress(data)),
  });
}
