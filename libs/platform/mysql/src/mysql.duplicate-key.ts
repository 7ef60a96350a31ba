import type { AppError } from '@platform/errors';

const ER_DUP_ENTRY = 1062;

/** The part of a mysql2 (or knex-wrapped mysql2) error this module reads. */
interface DriverError {
  errno?: unknown;
  code?: unknown;
  sqlMessage?: unknown;
  message?: unknown;
}

/**
 * The unique index a duplicate-key error names. MariaDB says `for key 'name'`, MySQL 8 says
 * `for key 'table.name'`; the entry value earlier in the message may itself contain quotes, so
 * only the end of the message is read.
 */
export function duplicateKeyName(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { sqlMessage, message } = error as DriverError;
  const text = typeof sqlMessage === 'string' ? sqlMessage : typeof message === 'string' ? message : '';
  const match = /for key '([^']*)'$/.exec(text);
  if (!match) return undefined;
  const key = match[1] ?? '';
  return key.includes('.') ? key.slice(key.lastIndexOf('.') + 1) : key;
}

/**
 * True when a write failed on a unique index (ER_DUP_ENTRY), and, when `key` is given, on that
 * index: a table with several unique indexes (or the outbox's msg_id in the same transaction)
 * must not turn every duplicate into the same conflict.
 */
export function isDuplicateKey(error: unknown, key?: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { errno, code } = error as DriverError;
  if (errno !== ER_DUP_ENTRY && code !== 'ER_DUP_ENTRY') return false;
  return key === undefined || duplicateKeyName(error) === key;
}

/**
 * For `.catch()` after an insert or update: a duplicate key becomes the caller's domain error (a
 * 409 the client understands), anything else is rethrown as it was. A unique index is the only
 * race-free uniqueness check, so the pre-check a service might do cannot replace this.
 */
export function rethrowDuplicateKey(error: unknown, toError: () => AppError, options: { key?: string } = {}): never {
  if (isDuplicateKey(error, options.key)) throw toError();
  throw error;
}
