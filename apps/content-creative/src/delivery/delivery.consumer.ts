import { DELIVERY_EVENT_TYPES, DELIVERY_REPORT_LIMITS, DELIVERY_STREAM, type DeliveryEvent } from '@contracts/domain';
import type { Logger } from '@platform/logging';
import { deadLetterSubjectFor, runConsumer, type ConsumerSpec, type Naming, type RunningConsumer } from '@platform/nats';
import type { NatsConnection } from 'nats';
import type { DeliveryEventRecord, FoldOutcome } from './delivery.model';
import { utcDay, type DeliveryService } from './delivery.service';

export const DELIVERY_COUNTS_DURABLE = 'content-creative-delivery-counts';

/** The durable consumer of every delivery event type (unprefixed, like every spec). */
export const deliveryCountsConsumerSpec = (durable = DELIVERY_COUNTS_DURABLE): ConsumerSpec => ({
  stream: DELIVERY_STREAM.name,
  durable,
  filterSubject: DELIVERY_STREAM.subjects[0] as string,
  maxDeliver: 5,
  ackWaitMs: 30_000,
  deadLetterSubject: deadLetterSubjectFor(DELIVERY_STREAM.name, durable),
});

const positiveId = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
const text = (value: unknown, max: number): value is string => typeof value === 'string' && value.length > 0 && value.length <= max;

/** A message that is not a delivery event cannot become one by redelivery: it fails to the dead letters. */
export function decodeDeliveryEvent(data: Uint8Array): DeliveryEventRecord {
  const event = JSON.parse(Buffer.from(data).toString('utf8')) as Partial<DeliveryEvent> | null;
  const occurredAt = typeof event?.occurredAt === 'string' ? new Date(event.occurredAt) : undefined;
  if (
    !event ||
    !text(event.id, DELIVERY_REPORT_LIMITS.eventIdMax) ||
    !/^[\x21-\x7e]+$/.test(event.id) ||
    !(DELIVERY_EVENT_TYPES as readonly unknown[]).includes(event.type) ||
    !occurredAt ||
    Number.isNaN(occurredAt.getTime()) ||
    !positiveId(event.accountId) ||
    !positiveId(event.retailCampaignId) ||
    !positiveId(event.mediaPlanId) ||
    !positiveId(event.placementId) ||
    !text(event.creative, DELIVERY_REPORT_LIMITS.creativeMax) ||
    !text(event.segment, DELIVERY_REPORT_LIMITS.segmentMax)
  ) {
    throw new Error(
      'Not a delivery event (id of visible ASCII, a known type, occurredAt, positive account, campaign, plan and placement ids, creative and segment are required)',
    );
  }
  return {
    id: event.id,
    type: event.type as DeliveryEventRecord['type'],
    day: utcDay(occurredAt),
    accountId: event.accountId,
    retailCampaignId: event.retailCampaignId,
    mediaPlanId: event.mediaPlanId,
    placementId: event.placementId,
    creative: event.creative,
    segment: event.segment,
  };
}

interface Pending {
  event: DeliveryEventRecord;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Gathers the events the consumer's handlers hand it into batches (up to `maxBatch`, or what arrived
 * within `lingerMs` of the first), folds one batch at a time, and settles each handler once its
 * batch committed, so every message is acked after the commit that counted it. A batch that fails is
 * folded again one event at a time, so one event the database refuses fails alone.
 */
export class FoldBatcher {
  private pending: Pending[] = [];
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly fold: (events: DeliveryEventRecord[]) => Promise<FoldOutcome>,
    private readonly logger: Logger,
    private readonly maxBatch: number,
    private readonly lingerMs: number,
  ) {}

  add(event: DeliveryEventRecord): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ event, resolve, reject });
      if (this.pending.length >= this.maxBatch) this.cut();
      else this.timer ??= setTimeout(() => this.cut(), this.lingerMs);
    });
  }

  private cut(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    this.chain = this.chain.then(() => this.flush(batch));
  }

  private async flush(batch: Pending[]): Promise<void> {
    try {
      const outcome = await this.fold(batch.map((p) => p.event));
      this.logger.debug({ events: batch.length, ...outcome }, 'delivery events folded');
      for (const p of batch) p.resolve();
    } catch (error) {
      if (batch.length === 1) {
        batch[0]?.reject(error);
        return;
      }
      this.logger.warn({ err: error, events: batch.length }, 'delivery batch failed; folding its events one at a time');
      for (const p of batch) {
        await this.fold([p.event]).then(
          () => p.resolve(),
          (err: unknown) => p.reject(err),
        );
      }
    }
  }
}

/**
 * Folds the ad server's delivery events into the daily counts. Pulls up to `inFlight` messages at
 * once and counts them in batches of up to `maxBatch` (one transaction, two multi-row statements
 * each); a message is acked after the commit of its batch, and its id makes a redelivery count nothing.
 */
export async function startDeliveryCountsConsumer(deps: {
  nats: NatsConnection;
  names: Naming;
  logger: Logger;
  delivery: DeliveryService;
  durable?: string;
  maxBatch?: number;
  lingerMs?: number;
  inFlight?: number;
}): Promise<RunningConsumer> {
  const logger = deps.logger.child({ component: 'delivery-counts' });
  const maxBatch = deps.maxBatch ?? 500;
  const batcher = new FoldBatcher((events) => deps.delivery.fold(events), logger, maxBatch, deps.lingerMs ?? 25);
  return runConsumer({
    js: deps.nats.jetstream(),
    jsm: await deps.nats.jetstreamManager(),
    spec: deps.names.consumerSpec(deliveryCountsConsumerSpec(deps.durable)),
    logger,
    batch: deps.inFlight ?? maxBatch * 2,
    // The client takes a pull as lost after two missed idle heartbeats (half the expiry each) and pulls again,
    // and what the server still sends for the first pull is dropped until the ack wait brings it back: a short
    // expiry on a busy machine cost a burst of events 30 s. A pull ends early as soon as a batch has arrived.
    fetchExpiresMs: 10_000,
    handler: async ({ data }) => batcher.add(decodeDeliveryEvent(data)),
  });
}
