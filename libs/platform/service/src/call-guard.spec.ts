import { randomBytes } from 'node:crypto';
import { Metadata, principalMetadata, type Principal } from '@platform/grpc';
import { createCallGuard } from './call-guard';

describe(createCallGuard.name, () => {
  const key = randomBytes(32);
  const guard = createCallGuard(key);
  const principal: Principal = {
    keyId: 'k1',
    orgId: 'acme',
    accountIds: [7, 8],
    permissions: ['Widgets_View'],
    org: { isRetailer: true, dimensionWhitelist: [] },
  };
  const call = (p: Principal = principal, signingKey = key) => ({ metadata: principalMetadata(p, signingKey) });

  it('returns the verified principal when permission and scope hold', () => {
    expect(guard.org(call(), 'Widgets_View', 'acme')).toEqual(principal);
    expect(guard.account(call(), 'Widgets_View', 8)).toEqual(principal);
    expect(guard.any(call(), 'Widgets_View').orgId).toBe('acme');
  });

  it('refuses a missing or forged principal with 401', () => {
    expect(() => guard.any({ metadata: new Metadata() }, 'Widgets_View')).toThrow(expect.objectContaining({ status: 401, code: 'PRINCIPAL_MISSING' }));
    expect(() => guard.any(call(principal, randomBytes(32)), 'Widgets_View')).toThrow(expect.objectContaining({ status: 401, code: 'PRINCIPAL_INVALID' }));
  });

  it('checks the permission before the scope, naming the permission', () => {
    expect(() => guard.org(call(), 'Widgets_Edit', 'other')).toThrow(
      expect.objectContaining({ status: 403, extensions: { requiredPermission: 'Widgets_Edit' } }),
    );
  });

  it('answers another org or account as not found', () => {
    expect(() => guard.org(call(), 'Widgets_View', 'other')).toThrow(expect.objectContaining({ status: 404, code: 'ORG_NOT_FOUND' }));
    expect(() => guard.account(call(), 'Widgets_View', 9)).toThrow(expect.objectContaining({ status: 404, code: 'ACCOUNT_NOT_FOUND' }));
  });

  it('lets a peer call through on scope alone, still refusing another account and an unsigned call', () => {
    expect(guard.peer(call({ ...principal, permissions: [] }), 7).keyId).toBe('k1');
    expect(() => guard.peer(call(), 9)).toThrow(expect.objectContaining({ status: 404, code: 'ACCOUNT_NOT_FOUND' }));
    expect(() => guard.peer({ metadata: new Metadata() }, 7)).toThrow(expect.objectContaining({ status: 401, code: 'PRINCIPAL_MISSING' }));
  });

  it('lets a peer read reference data with any signed principal, and refuses an unsigned call', () => {
    expect(guard.peerReference(call({ ...principal, permissions: [] })).keyId).toBe('k1');
    expect(() => guard.peerReference({ metadata: new Metadata() })).toThrow(expect.objectContaining({ status: 401, code: 'PRINCIPAL_MISSING' }));
  });

  it('refuses a principal signed too long ago', () => {
    const later = createCallGuard(key, () => Date.now() + 10 * 60_000);
    expect(() => later.any(call(), 'Widgets_View')).toThrow(expect.objectContaining({ status: 401, code: 'PRINCIPAL_EXPIRED' }));
  });
});
