import type { Request } from 'express';
import { Type } from '@sinclair/typebox';
import { DEFAULT_PAGE_LIMIT, DEFAULT_PAGE_OFFSET, MAX_PAGE_LIMIT, MAX_PAGE_OFFSET } from '@contracts/domain';
import { Int32 } from '../routes/common.schemas';

export { MAX_PAGE_LIMIT };

/** offset/limit with the shared defaults and cap; above the cap the request is refused, not clamped. */
export const PageQuery = Type.Object(
  {
    offset: Int32({ minimum: 0, maximum: MAX_PAGE_OFFSET, default: DEFAULT_PAGE_OFFSET, description: 'Items to skip.' }),
    limit: Int32({ minimum: 1, maximum: MAX_PAGE_LIMIT, default: DEFAULT_PAGE_LIMIT, description: `Page size, at most ${MAX_PAGE_LIMIT}.` }),
  },
  { additionalProperties: false },
);

export interface PageLinks {
  next: string | null;
  previous: string | null;
}

/**
 * Absolute links to the adjacent pages, keeping every other query parameter. The base is
 * PUBLIC_BASE_URL when set (the address clients use behind a proxy), else the request's own host.
 * A page at or past the end has no next, and its previous is the last page that has items (the one
 * starting at the last multiple of limit below total), not the equally empty page one limit back;
 * an empty list has no previous at all.
 */
export function pageLinks(req: Request, publicBaseUrl: string | undefined, page: { offset: number; limit: number; total: number }): PageLinks {
  const base = publicBaseUrl ?? `${req.protocol}://${req.get('host')}`;
  const link = (offset: number) => {
    const url = new URL(req.originalUrl, base.endsWith('/') ? base : `${base}/`);
    if (publicBaseUrl) url.pathname = new URL(publicBaseUrl).pathname.replace(/\/$/, '') + new URL(req.originalUrl, 'http://x').pathname;
    // Re-appended in a fixed order so links read the same whatever order the caller used.
    url.searchParams.delete('offset');
    url.searchParams.delete('limit');
    url.searchParams.append('offset', String(offset));
    url.searchParams.append('limit', String(page.limit));
    return url.toString();
  };
  const previous = page.offset >= page.total ? lastPageStart(page) : page.offset > 0 ? Math.max(0, page.offset - page.limit) : undefined;
  return {
    next: page.offset + page.limit < page.total ? link(page.offset + page.limit) : null,
    previous: previous === undefined ? null : link(previous),
  };
}

/** Where the last page with items starts (total 4, limit 2: 2); none when the list is empty. */
function lastPageStart({ limit, total }: { limit: number; total: number }): number | undefined {
  return total > 0 ? Math.floor((total - 1) / limit) * limit : undefined;
}
