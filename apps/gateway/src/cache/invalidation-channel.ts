import { DebugEvents, Events, type NatsConnection, type Status, type Subscription } from 'nats';
import type { Logger } from '@platform/logging';
import { broadcastConfirmed, settlesWithin } from '@platform/nats';

/**
 * One kind of notice a cache listens to: messages on the subject evict what they name; clear drops
 * everything, whenever the channel cannot vouch that no message was missed.
 */
export interface InvalidationTopic {
  subject: string;
  apply(data: Uint8Array): void;
  clear(): void;
}

/** Taken when a request arrives; a round trip launched after it proves the request saw every earlier notice. */
export type FenceMark = number;

/** What a cache's reader needs to know before it may answer from memory. */
export interface FreshnessGate {
  /** True while every subscription is known to be live. */
  isLive(): boolean;
  /** The mark to pass to fence() later in the same request. */
  mark(): FenceMark;
  /**
   * Resolves true once a NATS round trip launched after `since` (or, without it, after this call) has
   * completed: the server delivers in order, so every notice it routed to this process before that
   * round trip has been applied. False when it could not be confirmed in time.
   */
  fence(since?: FenceMark): Promise<boolean>;
}

export type InvalidationConnection = Pick<NatsConnection, 'subscribe' | 'publish' | 'flush' | 'status' | 'isClosed'>;

export interface InvalidationChannelOptions {
  nc: InvalidationConnection;
  /** Subjects with NATS_PREFIX applied. */
  topics: InvalidationTopic[];
  logger: Logger;
  /** How long a cache hit may wait for its round trip before going to the source instead. */
  fenceTimeoutMs?: number;
  /** How long a broadcast waits for the server to confirm it. */
  confirmTimeoutMs?: number;
}

const RECONFIRM_DELAY_MS = 1_000;

/**
 * Keeps every gateway replica's caches honest. Changes are published (core NATS) and every replica
 * evicts on receipt. A replica whose subscriptions may have missed a message (while disconnected,
 * not yet resubscribed, or with round trips stalling) does not answer from its caches, and clears
 * them when the subscriptions are confirmed again. All topics share one connection, so one round
 * trip vouches for all of them.
 */
export class InvalidationChannel implements FreshnessGate {
  private subscribed = false;
  /** Set while a round trip is overdue: messages may be stuck behind it, so the caches are not trusted. */
  private stalled = false;
  /** Bumped on each disconnect, so a confirmation that started before it cannot mark the channel live. */
  private connectionEpoch = 0;
  private subscriptions: Subscription[] = [];
  private closed = false;
  private fenceInFlight: Promise<boolean> | undefined;
  private fenceQueued: Promise<boolean> | undefined;
  /** Round trips launched so far, and the latest of them that completed in time. */
  private launched = 0;
  private confirmedLaunch = 0;
  private readonly log: Logger;
  private readonly fenceTimeoutMs: number;
  private readonly confirmTimeoutMs: number;

  private constructor(private readonly options: InvalidationChannelOptions) {
    this.log = options.logger.child({ component: 'cache-invalidation' });
    this.fenceTimeoutMs = options.fenceTimeoutMs ?? 250;
    this.confirmTimeoutMs = options.confirmTimeoutMs ?? 2_000;
  }

  /** Subscribes and waits until the server has the subscriptions, so the caches start out live. */
  static async start(options: InvalidationChannelOptions): Promise<InvalidationChannel> {
    const channel = new InvalidationChannel(options);
    void channel.followStatus();
    for (const topic of options.topics) {
      const subscription = options.nc.subscribe(topic.subject, {
        callback: (err, msg) => {
          if (err) {
            channel.log.error({ err, subject: topic.subject }, 'invalidation subscription failed; the caches are bypassed');
            channel.setSubscribed(false);
            return;
          }
          topic.apply(msg.data);
        },
      });
      void subscription.closed.then(() => channel.setSubscribed(false));
      channel.subscriptions.push(subscription);
    }
    await channel.confirmSubscription();
    return channel;
  }

  isLive(): boolean {
    return this.subscribed && !this.stalled && !this.closed && !this.options.nc.isClosed();
  }

  mark(): FenceMark {
    return this.launched;
  }

  fence(since?: FenceMark): Promise<boolean> {
    // A round trip launched after the mark has already come back: it vouches for this request too.
    if (since !== undefined && this.confirmedLaunch > since) return Promise.resolve(true);
    if (!this.fenceInFlight) return this.launchFence();
    // The round trip in flight was sent before this call, so it proves nothing about messages
    // published since; wait for the next one, which every caller arriving meanwhile shares.
    this.fenceQueued ??= this.fenceInFlight.then(() => {
      this.fenceQueued = undefined;
      return this.launchFence();
    });
    return this.fenceQueued;
  }

  /**
   * Tells every replica (this one included, through its own subscription). Resolves true once the
   * server has the message (it has then been routed to every live subscription), false when that
   * could not be confirmed. Callers evict locally first.
   */
  async broadcast(subject: string, payload: unknown): Promise<boolean> {
    const confirmed = await broadcastConfirmed(this.options.nc, subject, payload, this.confirmTimeoutMs);
    if (!confirmed) this.log.error({ subject, payload }, 'NATS did not confirm an invalidation; other replicas may serve the old entry until their cache TTL');
    return confirmed;
  }

  /** Stops listening; the caches are bypassed from now on. The connection is closed by its owner. */
  async close(): Promise<void> {
    this.closed = true;
    this.setSubscribed(false);
    for (const subscription of this.subscriptions) if (!subscription.isClosed()) subscription.unsubscribe();
  }

  private clearAll(): void {
    for (const topic of this.options.topics) topic.clear();
  }

  private launchFence(): Promise<boolean> {
    const launch = ++this.launched;
    const roundTrip = this.options.nc.flush();
    const fence = settlesWithin(roundTrip, this.fenceTimeoutMs).then((ok) => {
      if (ok) this.confirmedLaunch = Math.max(this.confirmedLaunch, launch);
      if (!ok && !this.stalled) {
        this.log.warn({ timeoutMs: this.fenceTimeoutMs }, 'NATS round trip overdue; caches bypassed until it completes');
        this.stalled = true;
        // The late answer (or the disconnect that rejects it) ends the stall; the caches are cleared
        // either way, since invalidations may have been held up behind it.
        void roundTrip.then(
          () => this.endStall(),
          () => this.endStall(),
        );
      }
      return ok;
    });
    this.fenceInFlight = fence;
    void fence.then(() => {
      if (this.fenceInFlight === fence) this.fenceInFlight = undefined;
    });
    return fence;
  }

  private endStall(): void {
    if (!this.stalled) return;
    this.stalled = false;
    this.clearAll();
  }

  /** Any change of liveness clears: entries filled before a gap may have missed its notices. */
  private setSubscribed(subscribed: boolean): void {
    if (subscribed && this.closed) return;
    if (this.subscribed !== subscribed) {
      this.log.info({ live: subscribed }, subscribed ? 'invalidations live; caches enabled' : 'invalidations not live; caches bypassed');
    }
    this.subscribed = subscribed;
    // Round trips that completed before now vouch for nothing after the gap.
    this.confirmedLaunch = this.launched;
    this.clearAll();
  }

  /**
   * A round trip after subscribing proves the server has processed the SUBs sent before it. Retried
   * while the same connection lasts, so a slow answer does not leave the caches off for good.
   */
  private async confirmSubscription(): Promise<boolean> {
    const epoch = this.connectionEpoch;
    const current = () => epoch === this.connectionEpoch && !this.closed && this.subscriptions.every((subscription) => !subscription.isClosed());
    const ok = await settlesWithin(this.options.nc.flush(), this.confirmTimeoutMs);
    if (!current()) return false;
    if (ok) {
      this.setSubscribed(true);
      return true;
    }
    this.log.warn('could not confirm the invalidation subscriptions; retrying, the caches stay bypassed meanwhile');
    setTimeout(() => {
      if (current()) void this.confirmSubscription();
    }, RECONFIRM_DELAY_MS).unref();
    return false;
  }

  private async followStatus(): Promise<void> {
    for await (const status of this.options.nc.status() as AsyncIterable<Status>) {
      if (this.closed) return;
      if (status.type === Events.Disconnect || status.type === DebugEvents.StaleConnection) {
        this.connectionEpoch += 1;
        this.setSubscribed(false);
      } else if (status.type === Events.Reconnect) {
        this.connectionEpoch += 1;
        void this.confirmSubscription();
      }
    }
  }
}
