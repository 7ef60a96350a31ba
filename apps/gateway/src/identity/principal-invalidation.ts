import type { Logger } from '@platform/logging';
import type { InvalidationChannel, InvalidationTopic } from '../cache/invalidation-channel';
import type { PrincipalInvalidator } from './identity.service';
import type { PrincipalCache } from './principal-cache';

/** Unprefixed; every gateway replica publishes to it and listens on it. */
export const PRINCIPAL_INVALIDATION_SUBJECT = 'gateway.principals.invalidate';

/** Only identifiers travel: never a secret, never a principal. */
export type PrincipalInvalidation = { keyId: string } | { orgId: string };

function parseInvalidation(data: Uint8Array): PrincipalInvalidation | undefined {
  try {
    const value = JSON.parse(Buffer.from(data).toString('utf8')) as Record<string, unknown>;
    if (typeof value.keyId === 'string') return { keyId: value.keyId };
    if (typeof value.orgId === 'string') return { orgId: value.orgId };
  } catch {
    // Falls through: an unreadable message is treated as "something changed".
  }
  return undefined;
}

function evict(cache: PrincipalCache, invalidation: PrincipalInvalidation): void {
  if ('keyId' in invalidation) cache.evictKey(invalidation.keyId);
  else cache.evictOrg(invalidation.orgId);
}

/** The principal cache's side of the invalidation channel (subject with NATS_PREFIX applied). */
export function principalInvalidationTopic(subject: string, cache: PrincipalCache, logger: Logger): InvalidationTopic {
  return {
    subject,
    apply: (data) => {
      const invalidation = parseInvalidation(data);
      if (invalidation) return evict(cache, invalidation);
      logger.warn({ subject }, 'unreadable principal invalidation; clearing the whole principal cache');
      cache.clear();
    },
    clear: () => cache.clear(),
  };
}

/** What the admin API calls after a change: evict here at once, then tell every replica. */
export function principalInvalidator(subject: string, cache: PrincipalCache, channel: Pick<InvalidationChannel, 'broadcast'>): PrincipalInvalidator {
  const invalidate = (invalidation: PrincipalInvalidation) => {
    evict(cache, invalidation);
    return channel.broadcast(subject, invalidation);
  };
  return {
    keyRevoked: (keyId) => invalidate({ keyId }),
    orgAccountsChanged: (orgId) => invalidate({ orgId }),
  };
}
