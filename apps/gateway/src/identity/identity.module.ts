import type { Router } from 'express';
import type { Knex } from 'knex';
import type { Logger } from '@platform/logging';
import { closeNats, connectNats, naming, pingNats } from '@platform/nats';
import type { GatewayConfig } from '../gateway.config';
import { Authenticator, createAuthenticator } from '../http/authenticate';
import { adminRouter } from './admin.routes';
import { IdentityRepository } from './identity.repository';
import { IdentityService } from './identity.service';
import { PrincipalCache } from './principal-cache';
import { PrincipalResolver } from './principal-resolver';
import { PRINCIPAL_INVALIDATION_SUBJECT, RevocationChannel } from './revocation-broadcast';

export interface IdentityModule {
  /** Resolves the request's API key (cached, see PrincipalResolver) or throws 401. */
  authenticate: Authenticator;
  adminRouter: Router;
  /** Readiness check: NATS answers, so revocations made here reach the other replicas. */
  natsReady(): Promise<boolean>;
  /** Unsubscribes and closes the NATS connection; the caller closes the database afterwards. */
  close(): Promise<void>;
}

export interface StartIdentityOptions {
  config: Pick<GatewayConfig, 'NATS_URL' | 'NATS_PREFIX' | 'PRINCIPAL_CACHE_TTL_MS' | 'PRINCIPAL_CACHE_MAX_ENTRIES'>;
  knex: Knex;
  permissions: ReadonlySet<string>;
  adminToken: string;
  logger: Logger;
}

/** Wires the identity part of the gateway: admin API, API-key authentication, principal cache and its invalidation over NATS. */
export async function startIdentity({ config, knex, permissions, adminToken, logger }: StartIdentityOptions): Promise<IdentityModule> {
  const nc = await connectNats({ url: config.NATS_URL, name: 'gateway', logger });
  try {
    const cache = new PrincipalCache({ ttlMs: config.PRINCIPAL_CACHE_TTL_MS, maxEntries: config.PRINCIPAL_CACHE_MAX_ENTRIES });
    const subject = naming(config.NATS_PREFIX).subject(PRINCIPAL_INVALIDATION_SUBJECT);
    const channel = await RevocationChannel.start({ nc, subject, cache, logger });
    const repository = new IdentityRepository(knex);
    const identity = new IdentityService(repository, permissions, {
      keyRevoked: (keyId) => channel.broadcast({ keyId }),
      orgAccountsChanged: (orgId) => channel.broadcast({ orgId }),
    });
    const resolver = new PrincipalResolver(repository, cache, channel);
    return {
      authenticate: createAuthenticator((apiKey) => resolver.resolve(apiKey)),
      adminRouter: adminRouter(identity, adminToken),
      natsReady: () => pingNats(nc).then(() => true),
      close: async () => {
        await channel.close();
        await closeNats(nc);
      },
    };
  } catch (error) {
    await closeNats(nc);
    throw error;
  }
}
