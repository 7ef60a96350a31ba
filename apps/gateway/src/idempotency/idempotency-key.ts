import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { validationFailed } from '@platform/errors';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** Set on an answer that is a replay of the first answer to the same key. */
export const IDEMPOTENT_REPLAY_HEADER = 'Idempotent-Replayed';
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/** Visible ASCII, no spaces: a UUID, a ULID or any token a client mints fits; a header sent twice (joined by ", ") does not. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]+$/;

/**
 * Whether an operation takes an Idempotency-Key: a POST, PUT, PATCH or DELETE, except a route that
 * declares `cache`, which is a read by contract (a search sent as POST) and changes nothing to repeat.
 */
export const takesIdempotencyKey = (route: { method?: string; cache?: unknown }) =>
  route.cache === undefined && route.method !== undefined && ['post', 'put', 'patch', 'delete'].includes(route.method.toLowerCase());

/** The request's Idempotency-Key, checked; undefined when it sends none. */
export function readIdempotencyKey(req: Request): string | undefined {
  const key = req.headers['idempotency-key'];
  if (key === undefined) return undefined;
  const refuse = (code: 'TOO_LONG' | 'INVALID_FORMAT', detail: string) => validationFailed([{ header: 'idempotency-key', code, detail }]);
  if (typeof key !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw refuse('INVALID_FORMAT', `${IDEMPOTENCY_KEY_HEADER} must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters, sent once.`);
  }
  if (key.length > IDEMPOTENCY_KEY_MAX_LENGTH) throw refuse('TOO_LONG', `${IDEMPOTENCY_KEY_HEADER} must be at most ${IDEMPOTENCY_KEY_MAX_LENGTH} characters.`);
  return key;
}

/** JSON with object members in name order, so the same request hashes the same however a client orders them. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.keys(value)
      .sort()
      .filter((name) => (value as Record<string, unknown>)[name] !== undefined)
      .map((name) => `${JSON.stringify(name)}:${canonicalJson((value as Record<string, unknown>)[name])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * SHA-256 of the request as validated: the operation, its path and query values and its body. A
 * streamed (multipart) body is not read before the handler, so there it is left out.
 */
export function requestFingerprint(parts: { operation: string; params: unknown; query: unknown; body: unknown }): Buffer {
  return createHash('sha256')
    .update(canonicalJson([parts.operation, parts.params, parts.query, parts.body]))
    .digest();
}
