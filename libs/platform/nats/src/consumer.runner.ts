import { withRequestId, type Logger } from '@platform/logging';
import { inSpan, SpanKind } from '@platform/telemetry';
import type { ConsumerMessages, JetStreamClient, JetStreamManager, JsMsg } from 'nats';
import { ensureConsumer, type ConsumerSpec } from './consumer.declare';
import { deadLetterHeaders, deadLetterMsgId } from './consumer.dead-letter';
import { errorMessage } from './nats.api-errors';
import { abortableSleep, backoffDelay, type BackoffOptions } from './nats.backoff';
import { ConsumerSlots } from './consumer.slots';
import { hopContext } from './nats.hop-headers';
import { publish } from './nats.publish';

/** What a handler sees of a JetStream delivery. */
export interface ConsumedMessage {
  data: Uint8Array;
  subject: string;
  headers: Readonly<Record<string, string>>;
  /** 1 on the first delivery; counts redeliveries after a nak, an ack timeout or a crash. */
  deliveryCount: number;
  /** The publisher's Nats-Msg-Id: the natural key for a handler's idempotency check. */
  msgId: string | undefined;
  streamSequence: number;
  /** When the stream stored the message: how long it waited is now minus this. */
  publishedAt: Date;
  /**
   * Runs `wait` (a wait on something outside this process, such as a lock another replica holds)
   * without holding one of the consumer's `batch` slots, so other messages are handled meanwhile; the
   * delivery stays this handler's. Resolves with `wait`'s result once a slot is free again.
   */
  idle<T>(wait: () => Promise<T>): Promise<T>;
  /**
   * Aborted once the consumer is stopping (its process shuts down). A handler of long work that can
   * start over may stop then and throw `HandBack`, rather than keep the shutdown waiting.
   */
  stopping: AbortSignal;
}

/**
 * Thrown by a handler that stopped because its consumer is stopping: the message goes back at once
 * (nak without delay) for another instance, where a failure would wait out a retry delay. The server
 * may count the hand back as a delivery, so a handler on its last one (`maxDeliver`) should finish
 * instead: its next delivery would be dead-lettered unrun.
 */
export class HandBack extends Error {
  constructor(message = 'handed back: the consumer is stopping') {
    super(message);
    this.name = 'HandBack';
  }
}

/**
 * Does the side effect of one message. Resolving acks the message; throwing naks it for a retry.
 *
 * Delivery is at least once: a crash after the side effect but before the ack, an ack lost on the
 * wire, or an ack wait that ran out all redeliver a message whose effect already happened. Every
 * handler must therefore be idempotent, e.g. keyed by `msgId`, an upsert, or a sequence check.
 */
export type MessageHandler = (message: ConsumedMessage) => Promise<void>;

export interface RunConsumerOptions {
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** Already prefixed (see `naming(prefix).consumerSpec`). */
  spec: ConsumerSpec;
  handler: MessageHandler;
  logger: Logger;
  /** Most messages handled at once (a handler waiting in `idle` holds none); also the most pulled in one request. */
  batch?: number;
  /** Nak delay by delivery count after a handler failure. */
  retryBackoff?: BackoffOptions;
  /** How long one pull request waits for messages before the next is issued (JetStream minimum 1s). */
  fetchExpiresMs?: number;
  /**
   * Runs for a delivery past `spec.maxDeliver`, which the handler never gets: each earlier delivery ended
   * without an outcome (its process died, or it was handed back each time). What the handler would have
   * recorded on its last failure is recorded here, then the message is dead-lettered. Throwing keeps the
   * message for one of the spare deliveries.
   */
  onExhausted?: (message: ConsumedMessage) => Promise<void>;
}

export interface RunningConsumer {
  /**
   * Stops pulling, hands back messages not yet started, tells running handlers (`stopping`), and waits
   * for them to settle.
   */
  stop(): Promise<void>;
}

const DEFAULT_RETRY_BACKOFF: BackoffOptions = { initialMs: 1_000, maxMs: 60_000 };
const PULL_ERROR_BACKOFF: BackoffOptions = { initialMs: 250, maxMs: 10_000 };

/**
 * Runs a durable pull consumer (declaring it first). Each message is acked only after its handler
 * resolved, nak'ed with a growing delay when it threw, and once it has failed `spec.maxDeliver`
 * times it is published to `spec.deadLetterSubject` and terminated so it stops blocking retries.
 */
export async function runConsumer({
  js,
  jsm,
  spec,
  handler,
  logger,
  batch = 10,
  retryBackoff = DEFAULT_RETRY_BACKOFF,
  fetchExpiresMs = 5_000,
  onExhausted,
}: RunConsumerOptions): Promise<RunningConsumer> {
  await ensureConsumer(jsm, spec);
  const consumer = await js.consumers.get(spec.stream, spec.durable);
  const log = logger.child({ component: 'consumer', stream: spec.stream, consumer: spec.durable });

  const stopping = new AbortController();
  const inFlight = new Set<Promise<void>>();
  const slots = new ConsumerSlots(batch);
  const stopRequested = new Promise<void>((resolve) => stopping.signal.addEventListener('abort', () => resolve(), { once: true }));
  let currentPull: ConsumerMessages | undefined;

  const deadLetter = async (msg: JsMsg, message: ConsumedMessage, reason: string): Promise<void> => {
    const headers = deadLetterHeaders({
      subject: message.subject,
      msgId: message.msgId,
      error: reason,
      stream: spec.stream,
      streamSequence: message.streamSequence,
      consumer: spec.durable,
      deliveryCount: message.deliveryCount,
      originalHeaders: message.headers,
    });
    try {
      await publish(js, spec.deadLetterSubject, message.data, {
        msgId: deadLetterMsgId(spec.stream, message.streamSequence),
        headers,
      });
    } catch (err) {
      // Keep the message: a later (spare) delivery retries the dead-lettering.
      log.error({ err, msgId: message.msgId, deadLetterSubject: spec.deadLetterSubject }, 'dead-letter publish failed');
      msg.nak(backoffDelay(retryBackoff, message.deliveryCount));
      return;
    }
    msg.term();
    log.error({ msgId: message.msgId, subject: message.subject, deliveryCount: message.deliveryCount, reason }, 'message dead-lettered');
  };

  const handleDelivery = async (msg: JsMsg): Promise<void> => {
    const idle: ConsumedMessage['idle'] = async (wait) => {
      slots.release();
      try {
        return await wait();
      } finally {
        await slots.reclaim();
      }
    };
    const message = toConsumedMessage(msg, idle, stopping.signal);
    if (message.deliveryCount > spec.maxDeliver) {
      // The handler already had its maxDeliver chances; we only got here because dead-lettering
      // failed or the process died mid-handler, so do not run it again.
      try {
        await onExhausted?.(message);
      } catch (err) {
        log.error({ err, msgId: message.msgId, deliveryCount: message.deliveryCount }, 'recording the end of an exhausted message failed');
        msg.nak(backoffDelay(retryBackoff, message.deliveryCount));
        return;
      }
      await deadLetter(msg, message, 'delivered more than maxDeliver times without an outcome');
      return;
    }
    // Long handlers (renders, big copies) keep the delivery theirs instead of racing a redelivery.
    const keepAlive = setInterval(() => msg.working(), Math.max(100, Math.floor(spec.ackWaitMs / 2)));
    keepAlive.unref();
    let failure: { error: unknown } | undefined;
    try {
      // The handler continues the publisher's request: its id on every log line, its trace as parent.
      const hop = hopContext(message.headers);
      await withRequestId(hop.requestId, () =>
        inSpan(`${message.subject} process`, { kind: SpanKind.CONSUMER, parent: hop.parent, attributes: spanAttributes(spec, message) }, () =>
          handler(message),
        ),
      );
    } catch (error) {
      failure = { error };
    } finally {
      clearInterval(keepAlive);
    }
    if (failure?.error instanceof HandBack) {
      log.info({ msgId: message.msgId, deliveryCount: message.deliveryCount }, 'message handed back: the consumer is stopping');
      msg.nak();
      return;
    }
    if (failure) {
      if (message.deliveryCount >= spec.maxDeliver) {
        await deadLetter(msg, message, errorMessage(failure.error));
      } else {
        const delayMs = backoffDelay(retryBackoff, message.deliveryCount);
        log.warn({ err: failure.error, msgId: message.msgId, deliveryCount: message.deliveryCount, delayMs }, 'handler failed; retrying');
        msg.nak(delayMs);
      }
      return;
    }
    try {
      // Waiting for the server's confirmation means stop() returns with the acks recorded.
      await msg.ackAck();
    } catch (err) {
      log.warn({ err, msgId: message.msgId }, 'ack not confirmed; the message may be redelivered');
    }
  };

  const track = (work: Promise<void>) => {
    inFlight.add(work);
    void work.finally(() => {
      inFlight.delete(work);
      slots.release();
    });
  };

  const pullLoop = async () => {
    let consecutiveErrors = 0;
    while (!stopping.signal.aborted) {
      const pullable = slots.pullable();
      if (pullable === 0) {
        await Promise.race([slots.changed(), stopRequested]);
        continue;
      }
      try {
        slots.requesting(pullable);
        currentPull = await consumer.fetch({ max_messages: pullable, expires: fetchExpiresMs });
        if (stopping.signal.aborted) await currentPull.close();
        for await (const msg of currentPull) {
          if (stopping.signal.aborted) {
            // Not started: hand it straight back so another instance need not wait out ack wait.
            msg.nak();
            continue;
          }
          slots.delivered();
          track(handleDelivery(msg).catch((err: unknown) => log.error({ err }, 'unexpected error handling a message')));
        }
        consecutiveErrors = 0;
      } catch (err) {
        if (stopping.signal.aborted) break;
        consecutiveErrors += 1;
        log.warn({ err, consecutiveErrors }, 'pull failed; retrying');
        await abortableSleep(backoffDelay(PULL_ERROR_BACKOFF, consecutiveErrors), stopping.signal);
      } finally {
        currentPull = undefined;
        slots.pullEnded();
      }
    }
  };

  const loopDone = pullLoop();
  log.info({ filterSubject: spec.filterSubject, batch }, 'consumer started');

  let stopped: Promise<void> | undefined;
  return {
    stop: () => {
      stopped ??= (async () => {
        stopping.abort();
        await currentPull?.close();
        await loopDone;
        await Promise.all([...inFlight]);
        log.info('consumer stopped');
      })();
      return stopped;
    },
  };
}

function spanAttributes(spec: ConsumerSpec, message: ConsumedMessage) {
  return {
    'messaging.system': 'nats',
    'messaging.destination.name': message.subject,
    'messaging.consumer.group.name': spec.durable,
    'messaging.message.id': message.msgId ?? '',
    'messaging.nats.delivery_count': message.deliveryCount,
  };
}

function toConsumedMessage(msg: JsMsg, idle: ConsumedMessage['idle'], stopping: AbortSignal): ConsumedMessage {
  const headers: Record<string, string> = {};
  for (const key of msg.headers?.keys() ?? []) headers[key] = msg.headers?.get(key) ?? '';
  return {
    data: msg.data,
    subject: msg.subject,
    headers,
    deliveryCount: msg.info.deliveryCount,
    msgId: Object.entries(headers).find(([key]) => key.toLowerCase() === 'nats-msg-id')?.[1] || undefined,
    streamSequence: msg.info.streamSequence,
    publishedAt: new Date(Math.floor(msg.info.timestampNanos / 1e6)),
    idle,
    stopping,
  };
}
