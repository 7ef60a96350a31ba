import pino, { Logger, LoggerOptions } from 'pino';
import { currentRequestId } from './request-context';

/**
 * Field names that must never reach a log line, at any depth, in any case.
 * Matches the write-only secrets of the interface plus our own credentials.
 */
export const SECRET_FIELDS = [
  'password',
  'accessKey',
  'secretKey',
  'secreteKey',
  'privateKey',
  'apiKey',
  'token',
  'authorization',
  'x-api-key',
  'cookie',
] as const;

const SECRET_KEYS = new Set<string>(SECRET_FIELDS.map((field) => field.toLowerCase()));
const CENSOR = '[REDACTED]';
/** Deeper than any object we log; past it a value is written as this says, so no secret hides below it. */
const MAX_DEPTH = 12;

const isPlainObject = (value: object): boolean => {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

/**
 * A copy of `value` with every member named as a secret (any case, any depth, inside arrays too)
 * censored. A path list (pino's `redact`) reaches only the depths it names, and a request body logged
 * whole (a feed's `feed.urlConfig.password`) is deeper than any list keeps up with. Errors, dates and
 * buffers pass as they are: pino's serializers write them. A child logger's bindings are not walked:
 * they name a component and ids, never a record.
 */
export function redactSecrets(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (!Array.isArray(value) && !isPlainObject(value)) return value;
  if (seen.has(value)) return '[Circular]';
  if (depth >= MAX_DEPTH) return '[Too deep]';
  seen.add(value);
  const copy = Array.isArray(value)
    ? value.map((item) => redactSecrets(item, depth + 1, seen))
    : Object.fromEntries(
        Object.entries(value).map(([key, member]) => [key, SECRET_KEYS.has(key.toLowerCase()) ? CENSOR : redactSecrets(member, depth + 1, seen)]),
      );
  seen.delete(value);
  return copy;
}

export interface CreateLoggerOptions {
  service: string;
  level?: LoggerOptions['level'];
  /** Where to write; tests pass a stream to read what was logged. */
  destination?: pino.DestinationStream;
}

/** A new object each time: pino merges the line's own fields into it (a line's own requestId wins). */
function requestIdField(): object {
  const requestId = currentRequestId();
  return requestId ? { requestId } : {};
}

/** Structured JSON logger with secrets redacted; one per process, children per module. */
export function createLogger({ service, level = 'info', destination }: CreateLoggerOptions): Logger {
  const options: LoggerOptions = {
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: {
      level: (label) => ({ level: label }),
      log: (fields) => redactSecrets(fields) as Record<string, unknown>,
    },
    // Every line written while a request is being served names it, wherever in the code it is written.
    mixin: requestIdField,
  };
  return destination ? pino(options, destination) : pino(options);
}

export type { Logger };
