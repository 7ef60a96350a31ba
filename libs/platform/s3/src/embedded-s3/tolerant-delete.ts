import type { S3rverStore } from './s3rver-hooks';

/**
 * After deleting an object, s3rver removes the directories that became empty, assuming nobody else
 * is doing the same: two deletions in one folder at once (a DeleteObjects batch does exactly that)
 * race, and the loser answers 500 although its object is gone. Those errors come only from that
 * clean-up, so they are dropped; at worst an empty directory stays behind, which no listing shows.
 */
export function tolerateConcurrentDeletes(store: S3rverStore): void {
  const deleteObject = store.deleteObject.bind(store);
  store.deleteObject = async (bucket, key) => {
    try {
      await deleteObject(bucket, key);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTEMPTY') throw error;
    }
  };
}
