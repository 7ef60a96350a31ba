/**
 * Views the gateway may answer from memory, and the notice that ends such an answer.
 *
 * A service that owns the data of a view announces every committed change on
 * CACHED_VIEW_CHANGED_SUBJECT (core NATS, before NATS_PREFIX) before it answers the write; every
 * gateway replica drops that tenant's pages of the view on receipt. The notice names the view and the
 * tenant only, never data.
 */
export const CACHED_VIEW_CHANGED_SUBJECT = 'cache.view.changed';

export const CACHED_VIEWS = {
  /** GET /v2/org/:orgId/retail-media-channels; changed by channels-plans on create, update and delete. */
  mediaChannels: 'media-channels',
  /**
   * Template search (POST /v2/accounts/:accountId/retail-campaigns/retail-templates), per account;
   * changed by templates on an account's Custom template create, update and delete and on its
   * bookmarks, and for every account at each start of the service (a release may bring a new System catalog).
   */
  retailTemplates: 'retail-templates',
  /**
   * Export status (GET /v2/accounts/:accountId/retail-campaigns/:retailCampaignIdx/exportAssetStatus), per
   * account: what clients poll while an export runs. Changed by content-creative on every export start and
   * status move, and by channels-plans on a campaign's status move (an ARCHIVED campaign answers ARCHIVED).
   */
  exportStatus: 'export-status',
} as const;
export type CachedView = (typeof CACHED_VIEWS)[keyof typeof CACHED_VIEWS];

/** A notice's tenant meaning every tenant of the view at once. */
export const EVERY_TENANT = '*';

/** The tenant whose pages changed: the org for org-scoped views, the account for account-scoped ones, or EVERY_TENANT. */
export interface CachedViewChange {
  view: CachedView;
  tenant: string;
}

/** The notice that an account's export status read changed (its tenant is the account, as the route's scope names it). */
export const exportStatusChanged = (accountId: number): CachedViewChange => ({ view: CACHED_VIEWS.exportStatus, tenant: String(accountId) });

/** The notice as it travels; anything else on the subject is treated as "something changed". */
export function parseCachedViewChange(data: Uint8Array): CachedViewChange | undefined {
  try {
    const value = JSON.parse(Buffer.from(data).toString('utf8')) as Record<string, unknown>;
    const views: readonly unknown[] = Object.values(CACHED_VIEWS);
    if (views.includes(value.view) && typeof value.tenant === 'string') return { view: value.view as CachedView, tenant: value.tenant };
  } catch {
    // Falls through to undefined.
  }
  return undefined;
}
