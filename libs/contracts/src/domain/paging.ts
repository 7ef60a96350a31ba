/**
 * Page defaults and the documented cap, shared by the gateway (query schema, links) and every
 * service (which re-applies them to what reaches it over gRPC).
 */
export const DEFAULT_PAGE_OFFSET = 0;
export const DEFAULT_PAGE_LIMIT = 25;
export const MAX_PAGE_LIMIT = 100;
/** The page offset travels as proto int32. */
export const MAX_PAGE_OFFSET = 2_147_483_647;

/** What a service should use when a PageRequest arrives with zero or missing values. */
export function effectivePage(page: { offset?: number; limit?: number } | undefined): { offset: number; limit: number } {
  const limit = page?.limit || DEFAULT_PAGE_LIMIT;
  return { offset: Math.max(page?.offset ?? DEFAULT_PAGE_OFFSET, 0), limit: Math.min(limit, MAX_PAGE_LIMIT) };
}
