import { AppError, internal, problem } from './app-error';

/**
 * Error codes that mean a connection to one of our own dependencies (MySQL, NATS, the object store)
 * failed or could not be had: the request was fine, the dependency was not there. Node's socket
 * errors; mysql2's for a connection that died; the server's own refusals while it shuts down, is
 * full or kills connections (MariaDB's ER_CONNECTION_KILLED included).
 */
const UNAVAILABLE_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_TOO_MANY_USER_CONNECTIONS',
  'ER_SERVER_SHUTDOWN',
  'ER_CONNECTION_KILLED',
  'ER_NET_READ_ERROR',
  'ER_NET_READ_INTERRUPTED',
  'ER_NET_ERROR_ON_WRITE',
  'ER_NET_WRITE_INTERRUPTED',
  'ER_NORMAL_SHUTDOWN',
  'ER_SHUTDOWN_COMPLETE',
  'CR_CONNECTION_ERROR',
  'CR_CONN_HOST_ERROR',
  'CR_SERVER_GONE_ERROR',
  'CR_SERVER_LOST',
]);

/** Error names (not codes) that mean the same: knex's timeout waiting for a pooled connection. */
const UNAVAILABLE_NAMES: ReadonlySet<string> = new Set(['KnexTimeoutError']);

/** How deep to follow `cause`: a driver error wrapped once or twice by the layers above it. */
const MAX_CAUSE_DEPTH = 4;

/**
 * True when `error` (or what it wraps) says a dependency of ours could not be reached or dropped the
 * connection. mysql2 marks every error that leaves its connection unusable `fatal`, which covers the
 * "closed state" errors of a connection the server went away from.
 */
export function isDependencyUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth <= MAX_CAUSE_DEPTH && typeof current === 'object' && current !== null; depth++) {
    const { code, name, fatal, cause } = current as { code?: unknown; name?: unknown; fatal?: unknown; cause?: unknown };
    if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
    if (typeof name === 'string' && UNAVAILABLE_NAMES.has(name)) return true;
    if (fatal === true) return true;
    current = cause;
  }
  return false;
}

/** Clients are told to come back after this many seconds: a restarted database or bus is usually back within a few. */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 1;

/**
 * The one translation of an error that reached the edge of a process (a gRPC handler, the gateway's
 * error handler) into the problem it answers: an AppError as thrown; a dependency that is down
 * becomes 503 SERVICE_UNAVAILABLE with Retry-After, never a 500; anything else is an opaque 500.
 * A write answered 503 may have been applied (the connection can die after the commit): the client
 * retries it as it would a timeout.
 */
export function toAppError(error: unknown, where = 'A dependency of the service'): AppError {
  if (error instanceof AppError) return error;
  if (isDependencyUnavailable(error))
    return problem('SERVICE_UNAVAILABLE', `${where} is unavailable; retry shortly.`, {
      cause: error,
      headers: { 'Retry-After': String(DEPENDENCY_RETRY_AFTER_SECONDS) },
    });
  return internal(undefined, error);
}
