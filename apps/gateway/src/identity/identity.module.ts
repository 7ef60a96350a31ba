import type { Knex } from 'knex';
import { withDeadline } from '@platform/errors';
import type { InvalidationChannel } from '../cache/invalidation-channel';
import { AdminAuthenticator, Authenticator, createAdminAuthenticator, createAuthenticator } from '../http/authenticate';
import { IdentityRepository } from './identity.repository';
import { IdentityService } from './identity.service';
import type { PrincipalCache } from './principal-cache';
import { principalInvalidator } from './principal-invalidation';
import { PrincipalResolver } from './principal-resolver';

export interface IdentityModule {
  /** Resolves the request's API key (cached, see PrincipalResolver) or throws 401. */
  authenticate: Authenticator;
  /** Checks the admin token of an admin route (see admin.routes.ts). */
  authenticateAdmin: AdminAuthenticator;
  /** Orgs, accounts and API keys, as the admin routes change them. */
  identity: IdentityService;
}

export interface StartIdentityOptions {
  knex: Knex;
  permissions: ReadonlySet<string>;
  adminToken: string;
  principals: PrincipalCache;
  /** Live before this is called; the principal topic is one of its topics. */
  invalidations: InvalidationChannel;
  /** The principal topic's subject, NATS_PREFIX applied. */
  principalSubject: string;
  /** How long resolving a key may take (the request's budget, GRPC_DEADLINE_MS): past it 504, not a hung request. */
  lookupDeadlineMs: number;
}

/** Wires the identity part of the gateway: the admin API's service and token check, and API-key authentication over the principal cache. */
export function startIdentity({
  knex,
  permissions,
  adminToken,
  principals,
  invalidations,
  principalSubject,
  lookupDeadlineMs,
}: StartIdentityOptions): IdentityModule {
  const repository = new IdentityRepository(knex);
  const identity = new IdentityService(repository, permissions, principalInvalidator(principalSubject, principals, invalidations));
  const resolver = new PrincipalResolver(repository, principals, invalidations);
  return {
    authenticate: createAuthenticator((apiKey) => withDeadline(resolver.resolve(apiKey), lookupDeadlineMs, 'The identity store')),
    authenticateAdmin: createAdminAuthenticator(adminToken),
    identity,
  };
}
