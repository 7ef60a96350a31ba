import { randomBytes } from 'node:crypto';
import { AppError } from '@platform/errors';
import { assertAccountScope, assertPermission, accountNotFound, Principal, principalMetadata, readPrincipal } from './principal';

describe('principal metadata', () => {
  const key = randomBytes(32);
  const principal: Principal = {
    keyId: 'k1',
    orgId: 'org-1',
    accountIds: [1, 2],
    permissions: ['MediaChannel_All'],
    org: { isRetailer: true, dimensionWhitelist: ['300x250'] },
  };

  it('reuses the signed metadata of the same principal object, and re-signs once it has aged', () => {
    const now = Date.now();
    const first = principalMetadata(principal, key, now);
    const again = principalMetadata(principal, key, now + 1_000);
    expect(again.get('x-principal-sig')).toEqual(first.get('x-principal-sig'));
    expect(again).not.toBe(first);
    const later = principalMetadata(principal, key, now + 61_000);
    expect(later.get('x-principal-sig')).not.toEqual(first.get('x-principal-sig'));
  });

  it('checks the age of a verified principal on every read, also when it comes from the cache', () => {
    const now = Date.now();
    const metadata = principalMetadata({ ...principal }, key, now);
    expect(readPrincipal(metadata, key, now)).toEqual(principal);
    expect(() => readPrincipal(metadata, key, now + 6 * 60_000)).toThrow(/too old/);
  });

  it('does not accept a cached signature under another key', () => {
    const metadata = principalMetadata({ ...principal }, key);
    readPrincipal(metadata, key);
    expect(() => readPrincipal(metadata, randomBytes(32))).toThrow(/signature/);
  });

  it('round-trips a signed principal', () => {
    expect(readPrincipal(principalMetadata(principal, key), key)).toEqual(principal);
  });

  it('refuses a principal signed with another key', () => {
    expect(() => readPrincipal(principalMetadata(principal, randomBytes(32)), key)).toThrow(/signature/);
  });

  it('refuses a tampered payload', () => {
    const metadata = principalMetadata(principal, key);
    const forged = Buffer.from(JSON.stringify({ ...principal, permissions: ['*'], iat: Date.now() })).toString('base64url');
    metadata.set('x-principal', forged);
    expect(() => readPrincipal(metadata, key)).toThrow(/signature/);
  });

  it('refuses an old principal and a missing one', () => {
    const old = principalMetadata(principal, key, Date.now() - 10 * 60_000);
    expect(() => readPrincipal(old, key)).toThrow(/too old/);
    const empty = principalMetadata(principal, key);
    empty.remove('x-principal');
    expect(() => readPrincipal(empty, key)).toThrow(/no principal/);
  });

  it('checks permission with * as wildcard and scope as 404', () => {
    expect(() => assertPermission(principal, 'MediaChannel_All')).not.toThrow();
    expect(() => assertPermission(principal, 'Campaigns_Create')).toThrow(expect.objectContaining({ status: 403 }));
    expect(() => assertPermission({ ...principal, permissions: ['*'] }, 'Campaigns_Create')).not.toThrow();
    expect(() => assertPermission(principal, 'MediaChannel_View')).not.toThrow();
    expect(() => assertPermission({ ...principal, permissions: ['MediaChannel_View'] }, 'MediaChannel_All')).toThrow();
    let error: unknown;
    try {
      assertAccountScope(principal, 3, () => accountNotFound(3));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(404);
  });
});
