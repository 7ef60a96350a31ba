import { compareKeys } from './key-order';

export type ListingEntry = { kind: 'file'; key: string; size: number; lastModified: Date } | { kind: 'folder'; key: string };

/** One ListObjectsV2 call: entries after `startAfter` (exclusive), at most about `maxKeys` of them. */
export type FetchListing = (startAfter: string, maxKeys: number) => Promise<{ entries: ListingEntry[]; isTruncated: boolean }>;

/** S3 returns at most 1000 entries per call; a page never asks for more than one call's worth. */
export const MAX_LIST_LIMIT = 1000;

/**
 * Builds one page of `limit` entries (files and folders in key order) that resumes after a plain key.
 *
 * The asset library hands `nextKey` to clients, so the cursor must be a key, not S3's opaque continuation
 * token. Resuming with `start-after=<folder>/` makes S3 roll the folder's keys up into that same folder
 * again, so entries not after the cursor are dropped here, and each call asks for one spare entry to
 * leave room for that repeat. Servers differ in whether folders count toward max-keys, so the page is
 * cut here, not by the server, and `nextKey` is null exactly when nothing follows.
 */
export async function collectPage(fetch: FetchListing, startAfter: string, limit: number): Promise<{ entries: ListingEntry[]; nextKey: string | null }> {
  const entries: ListingEntry[] = [];
  let cursor = startAfter;
  let more = true;
  while (more && entries.length <= limit) {
    const wanted = Math.min(MAX_LIST_LIMIT, limit + 2 - entries.length);
    const page = await fetch(cursor, wanted);
    const fresh = page.entries.filter((entry) => compareKeys(entry.key, cursor) > 0).sort((a, b) => compareKeys(a.key, b.key));
    entries.push(...fresh);
    more = page.isTruncated;
    if (more && fresh.length === 0) {
      throw new Error(`object listing made no progress after ${JSON.stringify(cursor)}; the server ignores start-after`);
    }
    if (fresh.length > 0) cursor = fresh[fresh.length - 1].key;
  }
  const pageEntries = entries.slice(0, limit);
  const nextKey = entries.length > limit ? pageEntries[pageEntries.length - 1].key : null;
  return { entries: pageEntries, nextKey };
}
