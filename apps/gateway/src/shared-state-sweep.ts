import type { Logger } from '@platform/logging';
import { startPeriodicTask } from '@platform/service';
import type { IdempotencyStore } from './idempotency/idempotency.store';
import type { RateLimitCounter } from './rate-limits/rate-limit-counter';

const SWEEP_INTERVAL_MS = 60_000;
/** Rows per statement, so a sweep never holds locks long on tables every request writes. */
const SWEEP_BATCH = 1_000;

/**
 * Removes what the replicas share and no longer need: expired idempotency keys and past rate-limit
 * windows. Every replica sweeps; the deletes are idempotent, so running twice only costs a statement.
 */
export function startSharedStateSweep(deps: { idempotency: IdempotencyStore; rateLimits: RateLimitCounter; currentWindow: () => number; logger: Logger }) {
  const drain = async (deleteBatch: () => Promise<number>) => {
    while ((await deleteBatch()) === SWEEP_BATCH);
  };
  return startPeriodicTask({
    intervalMs: SWEEP_INTERVAL_MS,
    run: async () => {
      await drain(() => deps.idempotency.deleteExpired(SWEEP_BATCH));
      await drain(() => deps.rateLimits.deleteBefore(deps.currentWindow(), SWEEP_BATCH));
    },
    onError: (error) => deps.logger.warn({ err: error }, 'could not sweep expired idempotency keys and rate-limit windows'),
  });
}
