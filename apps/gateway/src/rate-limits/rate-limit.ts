import { problem, withDeadline } from '@platform/errors';
import type { Logger } from '@platform/logging';
import type { RateLimitCounter } from './rate-limit-counter';

/** Who a request is counted against: its API key always, and the account it acts in when its route names one. */
export type RateLimitSubject = { keyId: string } | { accountId: number };

export interface RateLimit {
  /**
   * Counts one request of the subject; answers the RateLimit-* headers, or throws 429 with
   * Retry-After once the subject's budget for the minute is spent.
   */
  consume(subject: RateLimitSubject): Promise<Record<string, string>>;
}

export interface RateLimitOptions {
  counter: RateLimitCounter;
  /** Requests per minute per API key, over every replica; 0: no limit. */
  perKeyPerMinute: number;
  /** Requests per minute per account, over every key and replica; 0: no limit. */
  perAccountPerMinute: number;
  /**
   * Longest a request waits for the counter: past it the request goes through as if the counter were
   * down, so a database that hangs costs each request this much at most, never its whole budget.
   */
  counterWaitMs?: number;
  logger: Logger;
  now?: () => number;
}

const WINDOW_MS = 60_000;
/** One warning per this long while the counter cannot be reached, not one per request. */
const WARNING_INTERVAL_MS = 10_000;
/** Largest lease, and the share of a budget one lease may hold: 1% keeps the early refusals a replica can cause small. */
const MAX_LEASE = 100;
const LEASE_SHARE = 0.01;
/** Subjects kept in memory before those of past windows are swept out. */
const SWEEP_AT = 10_000;

/**
 * What this replica holds of a subject's budget in one window: requests it has reserved in the shared
 * counter and not spent yet (`left`), the counter's value at the last reservation, and the size of
 * the next one.
 */
interface Lease {
  window: number;
  left: number;
  shared: number;
  size: number;
  spent: boolean;
  reserving?: Promise<void>;
}

/**
 * Budgets per minute (fixed windows aligned on the minute, UTC) counted in the gateway's schema, so
 * every replica spends one budget. A replica reserves requests in leases: one at first, doubling while
 * a subject keeps asking within the window, up to 1% of the budget (at most 100). A busy key costs one
 * statement per lease rather than per request; a quiet one reserves only what it uses. What a replica
 * has reserved and not spent when the window ends was counted all the same, so a subject may be refused
 * up to one lease per replica early, never let through late. A spent subject is refused from memory
 * for the rest of its window. When the counter cannot be reached the request goes through (with a
 * warning): the limit protects the platform, and refusing every request would be the outage it
 * protects against.
 */
export function createRateLimit(options: RateLimitOptions): RateLimit {
  const { counter, perKeyPerMinute, perAccountPerMinute, counterWaitMs = 100, logger, now = Date.now } = options;
  const leases = new Map<string, Lease>();
  let lastWarning = 0;

  const headers = (limit: number, remaining: number, resetSeconds: number) => ({
    'RateLimit-Limit': String(limit),
    'RateLimit-Remaining': String(Math.max(0, remaining)),
    'RateLimit-Reset': String(resetSeconds),
  });
  const refuse = (limit: number, who: string, resetSeconds: number) =>
    problem('RATE_LIMITED', `${who} has used its ${limit} requests per minute; retry after ${resetSeconds} s.`, {
      headers: { ...headers(limit, 0, resetSeconds), 'Retry-After': String(resetSeconds) },
    });

  const leaseOf = (name: string, window: number): Lease => {
    const held = leases.get(name);
    if (held && held.window === window) return held;
    if (leases.size >= SWEEP_AT) for (const [other, lease] of leases) if (lease.window < window) leases.delete(other);
    const lease: Lease = { window, left: 0, shared: 0, size: 1, spent: false };
    leases.set(name, lease);
    return lease;
  };

  /** One reservation at a time per subject: requests arriving meanwhile wait for it rather than each asking. */
  const reserve = (name: string, limit: number, lease: Lease): Promise<void> => {
    lease.reserving ??= (async () => {
      const want = lease.size;
      const shared = await counter.hit(name, lease.window, want);
      // Only what fits in the budget is granted; the rest was counted and tells every replica the budget is spent.
      const granted = Math.max(0, Math.min(want, limit - (shared - want)));
      lease.left += granted;
      lease.shared = Math.max(lease.shared, shared);
      lease.spent = granted < want || shared >= limit;
      lease.size = Math.min(want * 2, Math.max(1, Math.min(MAX_LEASE, Math.floor(limit * LEASE_SHARE))));
    })().finally(() => {
      lease.reserving = undefined;
    });
    return lease.reserving;
  };

  return {
    async consume(subject) {
      const [name, limit, who] =
        'keyId' in subject
          ? [`key:${subject.keyId}`, perKeyPerMinute, 'This API key']
          : [`account:${subject.accountId}`, perAccountPerMinute, `Account ${subject.accountId}`];
      if (limit === 0) return {};
      const at = now();
      const window = Math.floor(at / WINDOW_MS);
      const resetSeconds = Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - at) / 1000));
      const lease = leaseOf(name, window);
      while (lease.left === 0) {
        if (lease.spent) throw refuse(limit, who, resetSeconds);
        try {
          await withDeadline(lease.reserving ?? reserve(name, limit, lease), counterWaitMs, 'The rate-limit counter');
        } catch (error) {
          if (at - lastWarning >= WARNING_INTERVAL_MS) {
            lastWarning = at;
            logger.warn({ err: error }, 'rate-limit counter unreachable; requests are not being limited');
          }
          return {};
        }
      }
      lease.left--;
      return headers(limit, limit - lease.shared + lease.left, resetSeconds);
    },
  };
}

/** The current minute's window, as the counter keys it. */
export const currentRateLimitWindow = (at: number = Date.now()) => Math.floor(at / WINDOW_MS);
