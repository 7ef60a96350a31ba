import { PROBLEMS, type ProblemCode } from '@contracts/domain';
import { takesIdempotencyKey } from '../idempotency/idempotency-key';

export { takesIdempotencyKey };

/** What an operation is, as far as the problems every operation of its kind can answer go. */
export interface ProblemSource {
  method?: string;
  cache?: unknown;
  scope?: { org: string } | { account: string } | 'none';
  body?: unknown;
  multipartBody?: unknown;
  problems?: readonly ProblemCode[];
}

/** Any /v2 operation: validation, identity, permission, method, rate limit, and a backend down or late. */
const V2_COMMON: readonly ProblemCode[] = [
  'VALIDATION_FAILED',
  'AUTHENTICATION_REQUIRED',
  'API_KEY_INVALID',
  'PERMISSION_DENIED',
  'METHOD_NOT_ALLOWED',
  'RATE_LIMITED',
  'SERVICE_UNAVAILABLE',
  'UPSTREAM_TIMEOUT',
];
/**
 * Any admin operation: admin calls are not rate limited, have no tenant scope and call no backend, but
 * they read and write the identity store: its database down answers 503, and one that does not answer
 * within the budget 504.
 */
const ADMIN_COMMON: readonly ProblemCode[] = ['VALIDATION_FAILED', 'ADMIN_TOKEN_INVALID', 'METHOD_NOT_ALLOWED', 'SERVICE_UNAVAILABLE', 'UPSTREAM_TIMEOUT'];
/** An operation that reads a body can also be refused for the body itself, before any route sees it. */
const BODY_COMMON: readonly ProblemCode[] = ['MALFORMED_JSON', 'MALFORMED_BODY', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'];

/** A write takes an Idempotency-Key, which a retry can find running or used for another request. */
const IDEMPOTENT_WRITE: readonly ProblemCode[] = ['IDEMPOTENCY_REQUEST_IN_PROGRESS', 'IDEMPOTENCY_KEY_REUSED'];

/**
 * Every problem code an operation can answer: its kind's common ones, the tenant its scope names (a
 * tenant outside the key's scope answers as missing), the body's, a write's idempotency key's, and the
 * ones the route declares.
 * The OpenAPI document lists exactly these per status, and the end-to-end specs hold every answer to it.
 */
export function operationProblems(source: ProblemSource, kind: 'v2' | 'admin'): ProblemCode[] {
  const scope = source.scope;
  const tenant: ProblemCode[] = scope === undefined || scope === 'none' ? [] : 'org' in scope ? ['ORG_NOT_FOUND'] : ['ACCOUNT_NOT_FOUND'];
  const readsBody = source.body !== undefined || source.multipartBody !== undefined;
  const write = takesIdempotencyKey(source) ? IDEMPOTENT_WRITE : [];
  return [...new Set([...(kind === 'v2' ? V2_COMMON : ADMIN_COMMON), ...tenant, ...(readsBody ? BODY_COMMON : []), ...write, ...(source.problems ?? [])])];
}

/** The codes grouped by the status the catalog gives them, statuses ascending and codes in catalog order. */
export function problemsByStatus(codes: readonly ProblemCode[]): Map<number, ProblemCode[]> {
  const catalogOrder = Object.keys(PROBLEMS) as ProblemCode[];
  const byStatus = new Map<number, ProblemCode[]>();
  for (const code of catalogOrder.filter((c) => codes.includes(c))) {
    const status = PROBLEMS[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}
