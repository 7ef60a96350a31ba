import { CACHED_VIEW_CHANGED_SUBJECT, type CachedViewChange } from '@contracts/domain';
import type { Logger } from '@platform/logging';
import { broadcastConfirmed, type BroadcastConnection, type Naming } from '@platform/nats';

/**
 * Tells every gateway replica that a tenant's pages of a cached view are stale. Call it after the
 * change has committed and before answering: a reader who saw the write's answer then never gets the
 * old page from any replica (docs/architecture.md, "Cached views"). Resolves false, after logging,
 * when NATS did not confirm; the change itself stands, and replicas that missed the notice serve the
 * old page until their cache TTL at most.
 */
export type ViewChangeAnnouncer = (change: CachedViewChange) => Promise<boolean>;

export interface ViewChangeAnnouncerOptions {
  nats: BroadcastConnection;
  names: Naming;
  logger: Logger;
  confirmTimeoutMs?: number;
}

export function createViewChangeAnnouncer({ nats, names, logger, confirmTimeoutMs = 2_000 }: ViewChangeAnnouncerOptions): ViewChangeAnnouncer {
  const subject = names.subject(CACHED_VIEW_CHANGED_SUBJECT);
  return async (change) => {
    const confirmed = await broadcastConfirmed(nats, subject, change, confirmTimeoutMs);
    if (!confirmed) logger.error({ ...change }, 'NATS did not confirm a cached-view change; gateway replicas may serve the old page until their cache TTL');
    return confirmed;
  };
}
