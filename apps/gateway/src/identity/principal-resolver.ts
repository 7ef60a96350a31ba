import type { Principal } from '@platform/grpc';
import { parseApiKey, secretMatches } from './api-key.codec';
import type { ApiKeyRecord, IdentityRepository } from './identity.repository';
import type { PrincipalCache } from './principal-cache';
import type { FreshnessGate } from '../cache/invalidation-channel';

export function toPrincipal(key: ApiKeyRecord): Principal {
  return {
    keyId: key.keyId,
    orgId: key.orgId,
    accountIds: key.accountIds,
    permissions: key.permissions,
    org: { isRetailer: key.org.isRetailer, dimensionWhitelist: key.org.dimensionWhitelist },
  };
}

/**
 * Resolves a presented API key to its principal, or null. Served from the cache only while the
 * invalidation channel is live and a NATS round trip started after the request has completed;
 * otherwise (cache off, NATS down, round trip overdue) it reads MySQL, as every request used to.
 */
export class PrincipalResolver {
  constructor(
    private readonly repository: Pick<IdentityRepository, 'findLiveApiKey'>,
    private readonly cache: PrincipalCache,
    private readonly gate: FreshnessGate,
  ) {}

  async resolve(apiKey: string): Promise<Principal | null> {
    const parsed = parseApiKey(apiKey);
    if (!parsed) return null;
    const { cache, gate } = this;
    if (cache.enabled && gate.isLive()) {
      const cached = cache.get(parsed.keyId);
      if (cached) {
        // Refused without waiting: a wrong secret is wrong whatever the key's state.
        if (!secretMatches(parsed.secret, cached.secretSha256)) return null;
        // The entry must have survived the round trip: an invalidation delivered meanwhile removed it.
        if ((await gate.fence()) && cache.peek(parsed.keyId) === cached) return cached.principal;
      }
    }
    const ticket = cache.enabled && gate.isLive() ? cache.ticket() : undefined;
    const key = await this.repository.findLiveApiKey(parsed.keyId);
    if (!key || !secretMatches(parsed.secret, key.secretSha256)) return null;
    const principal = toPrincipal(key);
    // Still live now: a disconnect meanwhile has flushed the cache and so invalidated the ticket.
    if (ticket !== undefined) cache.set(key.keyId, { principal, secretSha256: key.secretSha256 }, ticket);
    return principal;
  }
}
