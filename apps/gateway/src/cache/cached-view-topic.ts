import { parseCachedViewChange } from '@contracts/domain';
import type { Logger } from '@platform/logging';
import type { InvalidationTopic } from './invalidation-channel';
import type { ResponseCache } from './response-cache';

/** The response cache's side of the invalidation channel: services announce changes of cached views. */
export function cachedViewTopic(subject: string, cache: ResponseCache, logger: Logger): InvalidationTopic {
  return {
    subject,
    apply: (data) => {
      const change = parseCachedViewChange(data);
      if (change) return cache.invalidate(change.view, change.orgId);
      logger.warn({ subject }, 'unreadable cached-view change; clearing the whole response cache');
      cache.clear();
    },
    clear: () => cache.clear(),
  };
}
