import type { ServiceDatabase } from '@platform/mysql';

/** Where a key lives: the tenant it was sent in, the operation, and the key the client chose. */
export interface IdempotencyScope {
  tenant: string;
  operation: string;
  key: string;
}

/** The first answer, as replayed: its status, the headers that matter and the body's bytes. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * What a claim found: the key is new (or forgotten, or its first request's gateway died) and this
 * request runs; the first answer, to replay; the key was used for another request; or the first
 * request is still running.
 */
export type Claim = { outcome: 'claimed' } | { outcome: 'replay'; answer: StoredAnswer } | { outcome: 'mismatch' } | { outcome: 'in-flight' };

export interface IdempotencyStore {
  claim(scope: IdempotencyScope, fingerprint: Buffer): Promise<Claim>;
  /** Keeps the answer of a claimed request for replays until the key expires. */
  complete(scope: IdempotencyScope, fingerprint: Buffer, answer: StoredAnswer): Promise<void>;
  /** Forgets a claimed request that failed, so that a retry runs again. */
  release(scope: IdempotencyScope, fingerprint: Buffer): Promise<void>;
  /** Removes up to `limit` expired keys; answers how many went. */
  deleteExpired(limit: number): Promise<number>;
}

export interface IdempotencyTimes {
  /** How long a key and its answer are kept (24 h). */
  ttlMs: number;
  /** How long a running claim holds the key before another request may take it over. */
  leaseMs: number;
}

// Times are the database's (NOW(3), UTC), so replicas whose clocks differ still agree on expiry.
const INSERT_CLAIM = `INSERT IGNORE INTO idempotent_requests (tenant, operation, idempotency_key, request_sha256, lease_until, expires_at)
  VALUES (?, ?, ?, ?, NOW(3) + INTERVAL ? MICROSECOND, NOW(3) + INTERVAL ? MICROSECOND)`;
const SELECT_CLAIM = `SELECT request_sha256, status, headers, body, expires_at <= NOW(3) AS expired, lease_until <= NOW(3) AS lapsed
  FROM idempotent_requests WHERE tenant = ? AND operation = ? AND idempotency_key = ?`;
const TAKE_OVER = `UPDATE idempotent_requests
  SET request_sha256 = ?, status = NULL, headers = NULL, body = NULL,
      lease_until = NOW(3) + INTERVAL ? MICROSECOND, expires_at = NOW(3) + INTERVAL ? MICROSECOND
  WHERE tenant = ? AND operation = ? AND idempotency_key = ? AND (expires_at <= NOW(3) OR (status IS NULL AND lease_until <= NOW(3)))`;
const COMPLETE = `UPDATE idempotent_requests SET status = ?, headers = ?, body = ?
  WHERE tenant = ? AND operation = ? AND idempotency_key = ? AND status IS NULL AND request_sha256 = ?`;
const RELEASE = `DELETE FROM idempotent_requests
  WHERE tenant = ? AND operation = ? AND idempotency_key = ? AND status IS NULL AND request_sha256 = ?`;
const DELETE_EXPIRED = `DELETE FROM idempotent_requests WHERE expires_at <= NOW(3) LIMIT ?`;

interface ClaimRow {
  request_sha256: Buffer;
  status: number | null;
  headers: string | null;
  body: Buffer | null;
  expired: number;
  lapsed: number;
}

/** A claim that lost a race for an expired key reads again; past this many rounds the key is busy. */
const CLAIM_ATTEMPTS = 3;

/** The idempotency keys in the gateway's own schema, which every replica shares. */
export function createIdempotencyStore(db: ServiceDatabase, times: IdempotencyTimes): IdempotencyStore {
  const lease = times.leaseMs * 1000;
  const ttl = times.ttlMs * 1000;
  const where = (scope: IdempotencyScope) => [scope.tenant, scope.operation, scope.key];
  return {
    async claim(scope, fingerprint) {
      for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
        const inserted = await db.write(INSERT_CLAIM, [...where(scope), fingerprint, lease, ttl]);
        if (inserted.affectedRows === 1) return { outcome: 'claimed' };
        const [row] = await db.execute<ClaimRow>(SELECT_CLAIM, where(scope));
        if (!row) continue; // expired and swept between the two statements
        const expired = Number(row.expired) === 1;
        if (!expired && !row.request_sha256.equals(fingerprint)) return { outcome: 'mismatch' };
        if (!expired && row.status !== null) {
          return {
            outcome: 'replay',
            answer: { status: row.status, headers: JSON.parse(row.headers ?? '{}') as Record<string, string>, body: row.body ?? Buffer.alloc(0) },
          };
        }
        if (!expired && Number(row.lapsed) !== 1) return { outcome: 'in-flight' };
        const taken = await db.write(TAKE_OVER, [fingerprint, lease, ttl, ...where(scope)]);
        if (taken.affectedRows === 1) return { outcome: 'claimed' };
      }
      return { outcome: 'in-flight' };
    },
    async complete(scope, fingerprint, answer) {
      await db.write(COMPLETE, [answer.status, JSON.stringify(answer.headers), answer.body, ...where(scope), fingerprint]);
    },
    async release(scope, fingerprint) {
      await db.write(RELEASE, [...where(scope), fingerprint]);
    },
    async deleteExpired(limit) {
      return (await db.write(DELETE_EXPIRED, [limit])).affectedRows;
    },
  };
}
