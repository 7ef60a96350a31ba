import { DebugEvents, Events, type NatsConnection, type Status, type Subscription } from 'nats';
import type { Logger } from '@platform/logging';
import type { PrincipalCache } from './principal-cache';

/** Unprefixed; every gateway replica publishes to it and listens on it. */
export const PRINCIPAL_INVALIDATION_SUBJECT = 'gateway.principals.invalidate';

/** Only identifiers travel: never a secret, never a principal. */
export type PrincipalInvalidation = { keyId: string } | { orgId: string };

/** What the principal resolver needs to know before it may answer from the cache. */
export interface FreshnessGate {
  /** True while the invalidation subscription is known to be live. */
  isLive(): boolean;
  /**
   * Resolves true once a NATS round trip that started after the call has completed: the server
   * delivers in order, so every invalidation it routed to this process before that point has been
   * applied. False when it could not be confirmed in time.
   */
  fence(): Promise<boolean>;
}

export type InvalidationConnection = Pick<NatsConnection, 'subscribe' | 'publish' | 'flush' | 'status' | 'isClosed'>;

export interface RevocationChannelOptions {
  nc: InvalidationConnection;
  /** PRINCIPAL_INVALIDATION_SUBJECT with NATS_PREFIX applied. */
  subject: string;
  cache: PrincipalCache;
  logger: Logger;
  /** How long a cache hit may wait for its round trip before going to MySQL instead. */
  fenceTimeoutMs?: number;
  /** How long an admin change waits for the server to confirm its broadcast. */
  confirmTimeoutMs?: number;
}

const RECONFIRM_DELAY_MS = 1_000;

function withTimeout(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([
    promise.then(
      () => true,
      () => false,
    ),
    timeout,
  ]).finally(() => clearTimeout(timer));
}

function parseInvalidation(data: Uint8Array): PrincipalInvalidation | undefined {
  try {
    const value = JSON.parse(Buffer.from(data).toString('utf8')) as Record<string, unknown>;
    if (typeof value.keyId === 'string') return { keyId: value.keyId };
    if (typeof value.orgId === 'string') return { orgId: value.orgId };
  } catch {
    // Falls through: an unreadable message is treated as "something changed".
  }
  return undefined;
}

/**
 * Keeps every gateway replica's principal cache honest. Admin changes are published (core NATS) and
 * every replica evicts on receipt. A replica whose subscription may have missed a message (while
 * disconnected, not yet resubscribed, or with round trips stalling) does not answer from its cache,
 * and flushes it when the subscription is confirmed again.
 */
export class RevocationChannel implements FreshnessGate {
  private subscribed = false;
  /** Set while a round trip is overdue: messages may be stuck behind it, so the cache is not trusted. */
  private stalled = false;
  /** Bumped on each disconnect, so a confirmation that started before it cannot mark the channel live. */
  private connectionEpoch = 0;
  private subscription: Subscription | undefined;
  private closed = false;
  private fenceInFlight: Promise<boolean> | undefined;
  private fenceQueued: Promise<boolean> | undefined;
  private readonly log: Logger;
  private readonly fenceTimeoutMs: number;
  private readonly confirmTimeoutMs: number;

  private constructor(private readonly options: RevocationChannelOptions) {
    this.log = options.logger.child({ component: 'principal-cache' });
    this.fenceTimeoutMs = options.fenceTimeoutMs ?? 250;
    this.confirmTimeoutMs = options.confirmTimeoutMs ?? 2_000;
  }

  /** Subscribes and waits until the server has the subscription, so the cache starts out live. */
  static async start(options: RevocationChannelOptions): Promise<RevocationChannel> {
    const channel = new RevocationChannel(options);
    void channel.followStatus();
    channel.subscription = options.nc.subscribe(options.subject, {
      callback: (err, msg) => {
        if (err) {
          channel.log.error({ err }, 'principal invalidation subscription failed; the cache is bypassed');
          channel.setSubscribed(false);
          return;
        }
        channel.apply(parseInvalidation(msg.data));
      },
    });
    void channel.subscription.closed.then(() => channel.setSubscribed(false));
    await channel.confirmSubscription();
    return channel;
  }

  isLive(): boolean {
    return this.subscribed && !this.stalled && !this.closed && !this.options.nc.isClosed();
  }

  fence(): Promise<boolean> {
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
   * Evicts locally, then tells every replica. Resolves true once the server has the message (it has
   * then been routed to every live subscription), false when that could not be confirmed.
   */
  async broadcast(invalidation: PrincipalInvalidation): Promise<boolean> {
    this.apply(invalidation);
    try {
      this.options.nc.publish(this.options.subject, Buffer.from(JSON.stringify(invalidation)));
    } catch (err) {
      this.log.error({ err, ...invalidation }, 'could not publish a principal invalidation');
      return false;
    }
    const confirmed = await withTimeout(this.options.nc.flush(), this.confirmTimeoutMs);
    if (!confirmed)
      this.log.error({ ...invalidation }, 'NATS did not confirm a principal invalidation; other replicas may serve the old principal until their cache TTL');
    return confirmed;
  }

  /** Stops listening; the cache is bypassed from now on. The connection is closed by its owner. */
  async close(): Promise<void> {
    this.closed = true;
    this.setSubscribed(false);
    const subscription = this.subscription;
    if (subscription && !subscription.isClosed()) subscription.unsubscribe();
  }

  private apply(invalidation: PrincipalInvalidation | undefined): void {
    const { cache } = this.options;
    if (invalidation === undefined) {
      this.log.warn('unreadable principal invalidation; flushing the whole cache');
      cache.clear();
    } else if ('keyId' in invalidation) {
      cache.evictKey(invalidation.keyId);
    } else {
      cache.evictOrg(invalidation.orgId);
    }
  }

  private launchFence(): Promise<boolean> {
    const roundTrip = this.options.nc.flush();
    const fence = withTimeout(roundTrip, this.fenceTimeoutMs).then((ok) => {
      if (!ok && !this.stalled) {
        this.log.warn({ timeoutMs: this.fenceTimeoutMs }, 'NATS round trip overdue; serving principals from MySQL until it completes');
        this.stalled = true;
        // The late answer (or the disconnect that rejects it) ends the stall; the cache is flushed
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
    this.options.cache.clear();
  }

  /** Any change of liveness flushes: entries filled before a gap may have missed its broadcasts. */
  private setSubscribed(subscribed: boolean): void {
    if (subscribed && this.closed) return;
    if (this.subscribed !== subscribed) {
      this.log.info({ live: subscribed }, subscribed ? 'principal invalidations live; cache enabled' : 'principal invalidations not live; cache bypassed');
    }
    this.subscribed = subscribed;
    this.options.cache.clear();
  }

  /**
   * A round trip after subscribing proves the server has processed the SUB sent before it. Retried
   * while the same connection lasts, so a slow answer does not leave the cache off for good.
   */
  private async confirmSubscription(): Promise<boolean> {
    const epoch = this.connectionEpoch;
    const current = () => epoch === this.connectionEpoch && !this.closed && this.subscription !== undefined && !this.subscription.isClosed();
    const ok = await withTimeout(this.options.nc.flush(), this.confirmTimeoutMs);
    if (!current()) return false;
    if (ok) {
      this.setSubscribed(true);
      return true;
    }
    this.log.warn('could not confirm the principal invalidation subscription; retrying, the cache stays bypassed meanwhile');
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
