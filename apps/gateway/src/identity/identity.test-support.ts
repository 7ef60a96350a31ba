import type { Msg, Status, Subscription, SubscriptionOptions } from 'nats';
import { createLogger } from '@platform/logging';
import { issueApiKey } from './api-key.codec';
import type { ApiKeyRecord } from './identity.repository';
import type { CachedPrincipal } from './principal-cache';
import { toPrincipal } from './principal-resolver';
import type { InvalidationConnection } from '../cache/invalidation-channel';

export const silentLogger = createLogger({ service: 'gateway-identity-test', level: 'silent' });

/** A freshly issued key and the row MySQL would return for it. */
export function liveKey(orgId = 'org_a', accountIds = [1]): { apiKey: string; record: ApiKeyRecord } {
  const issued = issueApiKey();
  return {
    apiKey: issued.apiKey,
    record: {
      keyId: issued.keyId,
      orgId,
      secretSha256: issued.secretSha256,
      permissions: ['*'],
      allAccounts: true,
      org: { orgId, name: 'Org', isRetailer: true, dimensionWhitelist: [] },
      accountIds,
    },
  };
}

export const cachedPrincipal = (record: ApiKeyRecord): CachedPrincipal => ({ principal: toPrincipal(record), secretSha256: record.secretSha256 });

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets pending promise callbacks (several hops deep) run. */
export const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The part of a NATS connection the invalidation channel uses, driven by the test: round trips
 * (flush) complete when the test says so, status events and messages arrive when it sends them.
 */
export class FakeNats {
  readonly published: { subject: string; data: string }[] = [];
  readonly flushes: Deferred<void>[] = [];
  /** When true, every flush completes at once. */
  autoFlush = true;
  private readonly callbacks = new Map<string, SubscriptionOptions['callback']>();
  private subscriptionClosed = deferred<void>();
  private unsubscribed = false;
  private readonly statusQueue: Status[] = [];
  private statusWaiter: ((value: IteratorResult<Status>) => void) | undefined;

  asConnection(): InvalidationConnection {
    return this as unknown as InvalidationConnection;
  }

  subscribe(subject: string, options?: SubscriptionOptions): Subscription {
    this.callbacks.set(subject, options?.callback);
    return {
      closed: this.subscriptionClosed.promise,
      isClosed: () => this.unsubscribed,
      unsubscribe: () => {
        this.unsubscribed = true;
        this.subscriptionClosed.resolve();
      },
    } as unknown as Subscription;
  }

  publish(subject: string, data: Uint8Array): void {
    this.published.push({ subject, data: Buffer.from(data).toString('utf8') });
  }

  flush(): Promise<void> {
    if (this.autoFlush) return Promise.resolve();
    const pending = deferred<void>();
    this.flushes.push(pending);
    return pending.promise;
  }

  isClosed(): boolean {
    return false;
  }

  status(): AsyncIterable<Status> {
    return {
      [Symbol.asyncIterator]: () => ({
        next: () => {
          const queued = this.statusQueue.shift();
          if (queued) return Promise.resolve({ value: queued, done: false });
          return new Promise<IteratorResult<Status>>((resolve) => {
            this.statusWaiter = resolve;
          });
        },
      }),
    };
  }

  emitStatus(type: Status['type']): void {
    const status = { type, data: '' } as Status;
    const waiter = this.statusWaiter;
    this.statusWaiter = undefined;
    if (waiter) waiter({ value: status, done: false });
    else this.statusQueue.push(status);
  }

  /** A message as the server would deliver it to the subscription of the subject (the first one when not named). */
  deliver(payload: unknown, subject?: string): void {
    const data = Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload));
    const callback = subject === undefined ? [...this.callbacks.values()][0] : this.callbacks.get(subject);
    callback?.(null, { data } as unknown as Msg);
  }
}
