import type { Knex } from 'knex';
import type { Logger } from '@platform/logging';

const ER_LOCK_WAIT_TIMEOUT = 1205;
const ER_LOCK_DEADLOCK = 1213;
const RETRYABLE_ERRNOS: ReadonlySet<number> = new Set([ER_LOCK_DEADLOCK, ER_LOCK_WAIT_TIMEOUT]);

/**
 * True for failures where the server gave up on the transaction because of another one, not because
 * of anything wrong in it: running it again from the start is expected to succeed. A lost connection
 * is deliberately not one: the COMMIT may have been applied before the server went away, so running
 * the transaction again could store the change twice. It fails the call instead (503, see toAppError
 * in @platform/errors) and the client decides.
 */
export function isRetryableTransactionError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { errno } = error as { errno?: unknown };
  return typeof errno === 'number' && RETRYABLE_ERRNOS.has(errno);
}

export interface WithTransactionOptions {
  /** Further attempts after the first; 3 means at most 4 runs of `fn`. */
  retries?: number;
  logger?: Logger;
}

/**
 * Runs `fn` in a transaction, re-running the whole of it on deadlock or lock-wait timeout.
 * `fn` may therefore run more than once: keep side effects outside the database (publishing,
 * HTTP calls) out of it, or make them idempotent; the outbox table exists for exactly this.
 */
export async function withTransaction<T>(
  knex: Knex,
  fn: (trx: Knex.Transaction) => Promise<T>,
  { retries = 3, logger }: WithTransactionOptions = {},
): Promise<T> {
  // Inside an outer transaction a deadlock has already rolled all of it back, so re-running just
  // this savepoint would be wrong: let the error reach the outer withTransaction, which retries.
  if (knex.isTransaction) return knex.transaction(fn);

  for (let attempt = 0; ; attempt++) {
    try {
      return await knex.transaction(fn);
    } catch (error) {
      if (attempt >= retries || !isRetryableTransactionError(error)) throw error;
      const delayMs = retryDelayMs(attempt);
      logger?.warn({ err: error, attempt: attempt + 1, delayMs }, 'transaction conflicted, retrying');
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}

/**
 * Exponential with full jitter: two transactions that deadlocked each other and retried after
 * the same fixed delay would meet again.
 */
function retryDelayMs(attempt: number): number {
  return Math.round(Math.random() * 20 * 2 ** attempt);
}
