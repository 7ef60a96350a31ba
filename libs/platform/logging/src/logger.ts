import pino, { Logger, LoggerOptions } from 'pino';
import { currentRequestId } from './request-context';

/**
 * Field names that must never reach a log line, at any depth we commonly log.
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

const REDACT_PATHS = SECRET_FIELDS.flatMap((field) => {
  const key = field.includes('-') ? `["${field}"]` : `.${field}`;
  const bare = field.includes('-') ? `["${field}"]` : field;
  return [bare, `*${key}`, `*.*${key}`, `req.headers${key}`, `*.urlConfig${key}`];
});

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
    redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    // Every line written while a request is being served names it, wherever in the code it is written.
    mixin: requestIdField,
  };
  return destination ? pino(options, destination) : pino(options);
}

export type { Logger };
