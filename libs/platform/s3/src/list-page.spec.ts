import { selectListObjectsV2 } from './embedded-s3/list-objects-v2';
import { compareKeys } from './key-order';
import { collectPage, type FetchListing, type ListingEntry } from './list-page';

// AWS and MinIO do not run here, so their documented ListObjectsV2 behaviour is played by the
// embedded server's implementation of it: max-keys counts keys and folders together, and
// start-after=<folder>/ rolls that folder's keys up into the same folder again.
const KEYS = ['a', 'a-1.png', 'a.png', 'a/inner.png', 'b/1.png', 'b/2.png', 'b/deep/3.png', 'c.png', 'd/1.png', 'e.png', 'f/1.png', 'f/2.png'].sort(
  compareKeys,
);

function s3Semantics(delimiter: string, calls: number[] = []): FetchListing {
  return async (startAfter, maxKeys) => {
    calls.push(maxKeys);
    const selection = selectListObjectsV2(KEYS, { prefix: '', delimiter, startAfter, maxKeys });
    return { entries: toEntries(selection.keys, selection.commonPrefixes), isTruncated: selection.isTruncated };
  };
}

/** s3rver before our fixes: max-keys counts keys only, and every folder met on the way is returned, unsorted. */
function keysOnlySemantics(delimiter: string): FetchListing {
  return async (startAfter, maxKeys) => {
    const keys: string[] = [];
    const folders = new Set<string>();
    for (const key of KEYS) {
      if (compareKeys(key, startAfter) <= 0) continue;
      const index = delimiter ? key.indexOf(delimiter) : -1;
      if (index !== -1) {
        folders.add(key.slice(0, index + 1));
        continue;
      }
      if (keys.length === maxKeys) return { entries: toEntries(keys, [...folders].reverse()), isTruncated: true };
      keys.push(key);
    }
    return { entries: toEntries(keys, [...folders].reverse()), isTruncated: false };
  };
}

function toEntries(keys: string[], folders: string[]): ListingEntry[] {
  const folderEntries = folders.map((key): ListingEntry => ({ kind: 'folder', key }));
  const fileEntries = keys.map((key): ListingEntry => ({ kind: 'file', key, size: 1, lastModified: new Date(0) }));
  return [...folderEntries, ...fileEntries];
}

async function walkAllPages(fetch: FetchListing, limit: number): Promise<{ pages: string[][]; nextKeys: (string | null)[] }> {
  const pages: string[][] = [];
  const nextKeys: (string | null)[] = [];
  let cursor = '';
  for (let guard = 0; guard < 50; guard++) {
    const { entries, nextKey } = await collectPage(fetch, cursor, limit);
    pages.push(entries.map((entry) => entry.key));
    nextKeys.push(nextKey);
    if (nextKey === null) return { pages, nextKeys };
    cursor = nextKey;
  }
  throw new Error('pagination did not finish');
}

const TOP_LEVEL = ['a', 'a-1.png', 'a.png', 'a/', 'b/', 'c.png', 'd/', 'e.png', 'f/'];

describe(collectPage.name, () => {
  it.each([1, 2, 3, 4, 8, 9, 10])('pages through files and folders in key order with limit %i, each entry once', async (limit) => {
    for (const fetch of [s3Semantics('/'), keysOnlySemantics('/')]) {
      const { pages, nextKeys } = await walkAllPages(fetch, limit);
      expect(pages.flat()).toEqual(TOP_LEVEL);
      expect(pages.every((page) => page.length <= limit)).toBe(true);
      // The last page says so itself: no empty trailing page.
      expect(pages[pages.length - 1].length).toBeGreaterThan(0);
      expect(nextKeys.slice(0, -1).every((key) => key !== null)).toBe(true);
    }
  });

  it('lists every key when no delimiter is given', async () => {
    const { pages } = await walkAllPages(s3Semantics(''), 5);
    expect(pages.flat()).toEqual(KEYS);
  });

  it('leaves room for the folder S3 repeats after a folder cursor', async () => {
    const calls: number[] = [];
    const { entries, nextKey } = await collectPage(s3Semantics('/', calls), 'b/', 1);
    expect(entries.map((entry) => entry.key)).toEqual(['c.png']);
    expect(nextKey).toBe('c.png');
    expect(calls[0]).toBeGreaterThanOrEqual(2);
  });

  it('refuses to loop forever on a server that ignores start-after', async () => {
    const stuck: FetchListing = async () => ({ entries: [{ kind: 'folder', key: 'a/' }], isTruncated: true });
    await expect(collectPage(stuck, 'a/', 5)).rejects.toThrow(/made no progress/);
  });
});
