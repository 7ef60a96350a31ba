import {
  accountNotFound,
  assertAccountScope,
  assertOrgScope,
  assertPermission,
  orgNotFound,
  readPrincipal,
  type Metadata,
  type Principal,
} from '@platform/grpc';

/** The part of a grpc-js call a guard reads. */
export interface GuardedCall {
  metadata: Metadata;
}

/**
 * The first line of every handler: verifies the signed principal the gateway attached, then the
 * operation's permission, then the scope. A service re-checks all of it because the gateway is not
 * the only thing that can reach its port. Scope failures answer 404 like a missing resource.
 */
export interface CallGuard {
  /** For operations on no particular org or account (e.g. a global catalog). */
  any(call: GuardedCall, permission: string): Principal;
  org(call: GuardedCall, permission: string, orgId: string): Principal;
  account(call: GuardedCall, permission: string, accountId: number): Principal;
  /**
   * For peer methods, called by another service on behalf of the same caller: the signed principal
   * and the account scope are checked, not an operation permission (the calling service checked
   * the permission of the operation it serves).
   */
  peer(call: GuardedCall, accountId: number): Principal;
  /** For peer reads of reference data that belongs to no tenant (a catalog): the signed principal only. */
  peerReference(call: GuardedCall): Principal;
}

export function createCallGuard(principalKey: Buffer, now: () => number = Date.now): CallGuard {
  const any = (call: GuardedCall, permission: string) => {
    const principal = readPrincipal(call.metadata, principalKey, now());
    assertPermission(principal, permission);
    return principal;
  };
  return {
    any,
    org: (call, permission, orgId) => {
      const principal = any(call, permission);
      assertOrgScope(principal, orgId, () => orgNotFound(orgId));
      return principal;
    },
    account: (call, permission, accountId) => {
      const principal = any(call, permission);
      assertAccountScope(principal, accountId, () => accountNotFound(accountId));
      return principal;
    },
    peer: (call, accountId) => {
      const principal = readPrincipal(call.metadata, principalKey, now());
      assertAccountScope(principal, accountId, () => accountNotFound(accountId));
      return principal;
    },
    peerReference: (call) => readPrincipal(call.metadata, principalKey, now()),
  };
}
