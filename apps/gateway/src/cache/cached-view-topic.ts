import { EVERY_TENANT, parseCachedViewChange } from '@contracts/domain';
import type { Logger } from '@platform/logging';
import type { InvalidationTopic } from './invalidation-channel';
import type { ResponseCache } from './response-cache';

/** The response cache's side of the invalidation channel: services announce changes of cached views. */
export function cachedViewTopic(subject: string, cache: ResponseCache, logger: Logger): InvalidationTopic {
  return {
    subject,
    apply: (data) => {
      const change = parseCachedViewChange(data);
      // Every tenant at once is rare (a service's start): clearing everything costs one refill of each page.
      if (change) return change.tenant === EVERY_TENANT ? cache.clear() : cache.invalidate(change.view, change.tenant);
      logger.warn({ subject }, 'unreadable cached-view change; clearing the whole response cache');
      cache.clear();
    },
    clear: () => cache.clear(),
  };
}
