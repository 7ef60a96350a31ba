import { randomBytes } from 'node:crypto';
import { Metadata, principalMetadata, type Principal } from '@platform/grpc';
import { createCallGuard } from './call-guard';
import { declarationOf, declareCall } from './unary-handlers';

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
  /** A call to a method declared with `access`, as unaryHandlers makes it. */
  const call = (access = 'Widgets_View', p: Principal = principal, signingKey = key) => {
    const fake = { metadata: principalMetadata(p, signingKey) };
    declareCall(fake, 'GetWidget', access);
    return fake;
  };
  const unsigned = (access = 'Widgets_View') => {
    const fake = { metadata: new Metadata() };
    declareCall(fake, 'GetWidget', access);
    return fake;
  };

  it('returns the verified principal when the declared permission and the scope hold, and marks the call checked', () => {
    const checked = call();
    expect(guard.org(checked, 'acme')).toEqual(principal);
    expect(declarationOf(checked)?.checked).toBe(true);
    expect(guard.account(call(), 8)).toEqual(principal);
    expect(guard.any(call()).orgId).toBe('acme');
  });

  it('refuses a missing or forged principal with 401', () => {
    expect(() => guard.any(unsigned())).toThrow(expect.objectContaining({ status: 401, code: 'PRINCIPAL_MISSING' }));
    expect(() => guard.any(call('Widgets_View', principal, randomBytes(32)))).toThrow(expect.objectContaining({ status: 401, code: 'PRINCIPAL_INVALID' }));
  });

  it('checks the declared permission before the scope, naming the permission', () => {
    expect(() => guard.org(call('Widgets_Edit'), 'other')).toThrow(
      expect.objectContaining({ status: 403, extensions: { requiredPermission: 'Widgets_Edit' } }),
    );
  });

  it('answers another org or account as not found', () => {
    expect(() => guard.org(call(), 'other')).toThrow(expect.objectContaining({ status: 404, code: 'ORG_NOT_FOUND' }));
    expect(() => guard.account(call(), 9)).toThrow(expect.objectContaining({ status: 404, code: 'ACCOUNT_NOT_FOUND' }));
  });

  it('lets a peer call through on scope alone, still refusing another account and an unsigned call', () => {
    expect(guard.peer(call('peer', { ...principal, permissions: [] }), 7).keyId).toBe('k1');
    expect(() => guard.peer(call('peer'), 9)).toThrow(expect.objectContaining({ status: 404, code: 'ACCOUNT_NOT_FOUND' }));
    expect(() => guard.peer(unsigned('peer'), 7)).toThrow(expect.objectContaining({ status: 401, code: 'PRINCIPAL_MISSING' }));
  });

  it('lets a peer read reference data with any signed principal, and refuses an unsigned call', () => {
    expect(guard.peerReference(call('peer-reference', { ...principal, permissions: [] })).keyId).toBe('k1');
    expect(() => guard.peerReference(unsigned('peer-reference'))).toThrow(expect.objectContaining({ status: 401, code: 'PRINCIPAL_MISSING' }));
  });

  it('refuses a guard form that does not match the declaration, and a call with no declaration', () => {
    // A method declared with a permission checked as a peer would skip the permission: a programming error, never a pass.
    expect(() => guard.peer(call('Widgets_View'), 7)).toThrow("GetWidget is declared 'Widgets_View' but its handler checks it as peer");
    expect(() => guard.account(call('peer'), 7)).toThrow("GetWidget is declared 'peer' but its handler checks it as permission");
    expect(() => guard.peerReference(call('peer'))).toThrow("GetWidget is declared 'peer' but its handler checks it as peer-reference");
    expect(() => guard.any({ metadata: principalMetadata(principal, key) })).toThrow('carries no method declaration');
  });

  it('refuses a principal signed too long ago', () => {
    const later = createCallGuard(key, () => Date.now() + 10 * 60_000);
    expect(() => later.any(call())).toThrow(expect.objectContaining({ status: 401, code: 'PRINCIPAL_EXPIRED' }));
  });
});
