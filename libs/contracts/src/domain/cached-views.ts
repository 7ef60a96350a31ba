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
} as const;
export type CachedView = (typeof CACHED_VIEWS)[keyof typeof CACHED_VIEWS];

/** The tenant whose pages changed: the org for org-scoped views. */
export interface CachedViewChange {
  view: CachedView;
  orgId: string;
}

/** The notice as it travels; anything else on the subject is treated as "something changed". */
export function parseCachedViewChange(data: Uint8Array): CachedViewChange | undefined {
  try {
    const value = JSON.parse(Buffer.from(data).toString('utf8')) as Record<string, unknown>;
    const views: readonly unknown[] = Object.values(CACHED_VIEWS);
    if (views.includes(value.view) && typeof value.orgId === 'string') return { view: value.view as CachedView, orgId: value.orgId };
  } catch {
    // Falls through to undefined.
  }
  return undefined;
}
