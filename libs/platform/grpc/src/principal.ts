import { createHmac, timingSafeEqual } from 'node:crypto';
import { Metadata } from '@grpc/grpc-js';
import { AppError, forbidden, problem, unauthorized } from '@platform/errors';

/**
 * Who is calling, as the gateway resolved it from the API key. It travels to services in
 * call metadata, signed with a key only the cluster's processes share, so a service can
 * re-check scope and permission instead of trusting whatever reaches its port.
 */
export interface Principal {
  keyId: string;
  orgId: string;
  /** Accounts the key may act on (already resolved: "all accounts" means the org's full list). */
  accountIds: number[];
  permissions: string[];
  org: { isRetailer: boolean; dimensionWhitelist: string[] };
}

/**
 * The principal of a worker carrying out a job for one account (the export renderer reading what an
 * export renders): scoped to that account and holding no permission, so it passes the scope check of
 * peer methods and nothing else; it can never call an operation a client calls. The worker signs it
 * with INTERNAL_AUTH_KEY, as the gateway signs a caller's, afresh for each job.
 */
export function workerPrincipal(worker: string, orgId: string, accountId: number): Principal {
  return { keyId: `worker:${worker}`, orgId, accountIds: [accountId], permissions: [], org: { isRetailer: false, dimensionWhitelist: [] } };
}

const PRINCIPAL_HEADER = 'x-principal';
const SIGNATURE_HEADER = 'x-principal-sig';
/** Signed principals older than this are refused, which bounds replay of a captured header. */
const MAX_AGE_MS = 5 * 60_000;

function sign(payload: string, key: Buffer): string {
  return createHmac('sha256', key).update(payload).digest('base64url');
}

/**
 * A principal's signed metadata is reused for a minute (a key's principal object is cached by the
 * gateway, so the same object comes back on every request): signing and encoding it per call cost
 * more than the rest of the edge's bookkeeping. Each caller gets a clone, since call filters may
 * add headers to the metadata they are handed.
 */
const SIGNED_REUSE_MS = 60_000;
const signedCache = new WeakMap<Principal, { key: Buffer; signedAt: number; metadata: Metadata }>();

export function principalMetadata(principal: Principal, key: Buffer, now = Date.now()): Metadata {
  const cached = signedCache.get(principal);
  if (cached && cached.key === key && now >= cached.signedAt && now - cached.signedAt < SIGNED_REUSE_MS) return cached.metadata.clone();
  const payload = Buffer.from(JSON.stringify({ ...principal, iat: now })).toString('base64url');
  const metadata = new Metadata();
  metadata.set(PRINCIPAL_HEADER, payload);
  metadata.set(SIGNATURE_HEADER, sign(payload, key));
  signedCache.set(principal, { key, signedAt: now, metadata });
  return metadata.clone();
}

/**
 * Verified principals by signature, so a service verifies a reused principal once rather than on
 * every call. A hit still needs the same key and the identical payload, and its age is checked
 * on every read. Bounded: the oldest entries go first.
 */
const VERIFIED_MAX_ENTRIES = 10_000;
const verifiedCache = new Map<string, { key: Buffer; payload: string; iat: number; principal: Principal }>();

function verify(payload: string, signature: string, key: Buffer): { iat: number; principal: Principal } {
  const cached = verifiedCache.get(signature);
  if (cached && cached.key === key && cached.payload === payload) return cached;
  const expected = Buffer.from(sign(payload, key));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    throw unauthorized('PRINCIPAL_INVALID', 'The principal signature does not verify.');
  }
  const { iat, ...principal } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Principal & { iat: number };
  if (verifiedCache.size >= VERIFIED_MAX_ENTRIES) verifiedCache.delete(verifiedCache.keys().next().value as string);
  verifiedCache.set(signature, { key, payload, iat, principal });
  return { iat, principal };
}

export function readPrincipal(metadata: Metadata, key: Buffer, now = Date.now()): Principal {
  const [payload] = metadata.get(PRINCIPAL_HEADER);
  const [signature] = metadata.get(SIGNATURE_HEADER);
  if (typeof payload !== 'string' || typeof signature !== 'string') {
    throw unauthorized('PRINCIPAL_MISSING', 'The call carries no principal.');
  }
  const { iat, principal } = verify(payload, signature, key);
  if (!Number.isFinite(iat) || Math.abs(now - iat) > MAX_AGE_MS) {
    throw unauthorized('PRINCIPAL_EXPIRED', 'The principal is too old.');
  }
  return principal;
}

/** `*` grants everything; `<Family>_All` grants every permission of that family (e.g. MediaChannel_View). */
export function hasPermission(principal: Principal, permission: string): boolean {
  const family = permission.slice(0, permission.indexOf('_'));
  return (
    principal.permissions.includes('*') || principal.permissions.includes(permission) || (family.length > 0 && principal.permissions.includes(`${family}_All`))
  );
}

/** Scope checks answer 404 exactly like a missing resource, so they reveal nothing. */
export function assertOrgScope(principal: Principal, orgId: string, missing: () => AppError): void {
  if (principal.orgId !== orgId) throw missing();
}

export function assertAccountScope(principal: Principal, accountId: number, missing: () => AppError): void {
  if (!principal.accountIds.includes(accountId)) throw missing();
}

export function assertPermission(principal: Principal, permission: string): void {
  if (!hasPermission(principal, permission)) throw forbidden(permission);
}

export const orgNotFound = (orgId: string) => problem('ORG_NOT_FOUND', `Organization ${orgId} was not found.`);
export const accountNotFound = (accountId: number | string) => problem('ACCOUNT_NOT_FOUND', `Account ${accountId} was not found.`);
