import { problem } from '@platform/errors';
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
  logger: Logger;
  now?: () => number;
}

const WINDOW_MS = 60_000;
/** Spent subjects kept in memory before those of past windows are swept out. */
const SPENT_SUBJECTS_SWEEP_AT = 1_000;
/** One warning per this long while the counter cannot be reached, not one per request. */
const WARNING_INTERVAL_MS = 10_000;

/**
 * Budgets per minute (fixed windows aligned on the minute, UTC) counted in the gateway's schema, so
 * every replica spends the same budget. A subject found spent is refused from memory for the rest of
 * its window, without a round trip. When the counter cannot be reached the request goes through
 * (with a warning): the limit protects the platform, and refusing every request would be the outage
 * it protects against.
 */
export function createRateLimit(options: RateLimitOptions): RateLimit {
  const { counter, perKeyPerMinute, perAccountPerMinute, logger, now = Date.now } = options;
  const spentUntilWindow = new Map<string, number>();
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
      if (spentUntilWindow.get(name) === window) throw refuse(limit, who, resetSeconds);
      let count: number;
      try {
        count = await counter.hit(name, window);
      } catch (error) {
        if (at - lastWarning >= WARNING_INTERVAL_MS) {
          lastWarning = at;
          logger.warn({ err: error }, 'rate-limit counter unreachable; requests are not being limited');
        }
        return {};
      }
      if (count > limit) {
        if (spentUntilWindow.size >= SPENT_SUBJECTS_SWEEP_AT) for (const [spent, until] of spentUntilWindow) if (until < window) spentUntilWindow.delete(spent);
        spentUntilWindow.set(name, window);
        throw refuse(limit, who, resetSeconds);
      }
      return headers(limit, limit - count, resetSeconds);
    },
  };
}

/** The current minute's window, as the counter keys it. */
export const currentRateLimitWindow = (at: number = Date.now()) => Math.floor(at / WINDOW_MS);
