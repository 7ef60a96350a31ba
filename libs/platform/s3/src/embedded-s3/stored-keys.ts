import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { compareKeys } from '../key-order';
import { OBJECT_SUFFIX, UPLOADS_DIRECTORY } from './s3rver-layout';

/**
 * Every key under `prefix` in a bucket directory, in S3 (UTF-8 byte) order.
 * s3rver walks directories in file-name order, which is not key order once the suffix and the
 * directory split are involved ("a/x" is visited before "a-b", "a-" before "a"), so its truncated
 * listings skip keys; this reads the whole subtree instead and sorts. Fine for a development server.
 */
export async function listStoredKeys(bucketDirectory: string, prefix: string): Promise<string[]> {
  // Only the directory that could hold the prefix needs reading: "accounts/7/lo" lives under accounts/7/.
  const slash = prefix.lastIndexOf('/');
  const baseKey = slash === -1 ? '' : prefix.slice(0, slash + 1);
  const keys: string[] = [];
  await collect(join(bucketDirectory, ...baseKey.split('/').filter(Boolean)), baseKey, keys);
  return keys.filter((key) => key.startsWith(prefix)).sort(compareKeys);
}

async function collect(directory: string, keyPrefix: string, into: string[]): Promise<void> {
  let entries;
  try {
    entries = await readdir(directory, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return;
    throw error;
  }
  for (const entry of entries) {
    if (entry.isDirectory()) {
      if (keyPrefix === '' && entry.name === UPLOADS_DIRECTORY) continue;
      await collect(join(directory, entry.name), `${keyPrefix}${entry.name}/`, into);
    } else if (entry.name.endsWith(OBJECT_SUFFIX)) {
      into.push(keyPrefix + entry.name.slice(0, -OBJECT_SUFFIX.length));
    }
  }
}
