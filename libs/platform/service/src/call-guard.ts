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
import { declarationOf, type CallDeclaration } from './unary-handlers';

/** The part of a grpc-js call a guard reads. */
export interface GuardedCall {
  metadata: Metadata;
}

/**
 * The first line of every handler: verifies the signed principal the gateway attached, then the
 * permission the method declares (@contracts/domain, `*_ACCESS`), then the scope. A service
 * re-checks all of it because the gateway is not the only thing that can reach its port. Scope
 * failures answer 404 like a missing resource. The guard's form must match the declaration: a
 * permission for any/org/account, `peer` for peer, `peer-reference` for peerReference; a mismatch
 * is a programming error and answers 500.
 */
export interface CallGuard {
  /** For operations on no particular org or account (e.g. a global catalog). */
  any(call: GuardedCall): Principal;
  org(call: GuardedCall, orgId: string): Principal;
  account(call: GuardedCall, accountId: number): Principal;
  /**
   * For peer methods, called by another service on behalf of the same caller: the signed principal
   * and the account scope are checked, not an operation permission (the calling service checked
   * the permission of the operation it serves).
   */
  peer(call: GuardedCall, accountId: number): Principal;
  /** For peer reads of reference data that belongs to no tenant (a catalog): the signed principal only. */
  peerReference(call: GuardedCall): Principal;
}

const PEER_ACCESS = ['peer', 'peer-reference'];

/** The call's declaration, once it is known to be of the kind this guard form checks. */
function declared(call: GuardedCall, form: 'permission' | 'peer' | 'peer-reference'): CallDeclaration {
  const declaration = declarationOf(call);
  if (!declaration) throw new Error('The call carries no method declaration: register its handler with unaryHandlers');
  const kind = PEER_ACCESS.includes(declaration.access) ? declaration.access : 'permission';
  if (kind !== form) throw new Error(`${declaration.method} is declared '${declaration.access}' but its handler checks it as ${form}`);
  return declaration;
}

export function createCallGuard(principalKey: Buffer, now: () => number = Date.now): CallGuard {
  const any = (call: GuardedCall) => {
    const declaration = declared(call, 'permission');
    const principal = readPrincipal(call.metadata, principalKey, now());
    assertPermission(principal, declaration.access);
    declaration.checked = true;
    declaration.principal = principal;
    return principal;
  };
  return {
    any,
    org: (call, orgId) => {
      const principal = any(call);
      assertOrgScope(principal, orgId, () => orgNotFound(orgId));
      return principal;
    },
    account: (call, accountId) => {
      const principal = any(call);
      assertAccountScope(principal, accountId, () => accountNotFound(accountId));
      return principal;
    },
    peer: (call, accountId) => {
      const declaration = declared(call, 'peer');
      const principal = readPrincipal(call.metadata, principalKey, now());
      assertAccountScope(principal, accountId, () => accountNotFound(accountId));
      declaration.checked = true;
      declaration.principal = principal;
      return principal;
    },
    peerReference: (call) => {
      const declaration = declared(call, 'peer-reference');
      const principal = readPrincipal(call.metadata, principalKey, now());
      declaration.checked = true;
      declaration.principal = principal;
      return principal;
    },
  };
}
