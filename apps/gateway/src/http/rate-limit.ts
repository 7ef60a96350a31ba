import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { problem } from '@platform/errors';

export interface RateLimit {
  /** Counts one request of the key; throws a 429 AppError once its budget is spent. */
  consume(keyId: string): Promise<Record<string, string>>;
}

/**
 * Per-API-key budget per minute, held in this gateway process (each replica enforces its own
 * share). 0 disables it. Answers carry the IETF RateLimit-* headers so clients can pace themselves.
 */
export function createRateLimit(perMinute: number): RateLimit {
  if (perMinute === 0) return { consume: async () => ({}) };
  const limiter = new RateLimiterMemory({ points: perMinute, duration: 60 });
  const headers = (res: RateLimiterRes) => ({
    'RateLimit-Limit': String(perMinute),
    'RateLimit-Remaining': String(Math.max(0, res.remainingPoints)),
    'RateLimit-Reset': String(Math.ceil(res.msBeforeNext / 1000)),
  });
  return {
    consume: async (keyId) => {
      try {
        return headers(await limiter.consume(keyId));
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        const retryAfter = String(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
        throw problem('RATE_LIMITED', `This API key has used its ${perMinute} requests per minute; retry after ${retryAfter} s.`, {
          headers: { ...headers(rejection), 'Retry-After': retryAfter },
        });
      }
    },
  };
}
