import { compareKeys } from '../key-order';

export interface ListObjectsV2Query {
  prefix: string;
  delimiter: string;
  /** Exclusive lower bound from `start-after`. */
  startAfter: string;
  /** Decoded `continuation-token`, when given; takes precedence over startAfter, as in S3. */
  continueAfter?: ListingPosition;
  maxKeys: number;
}

/** Where a truncated listing stopped: its last key, or its last common prefix (whose keys are all done). */
export interface ListingPosition {
  key: string;
  isCommonPrefix: boolean;
}

export interface ListObjectsV2Selection {
  keys: string[];
  commonPrefixes: string[];
  isTruncated: boolean;
  next?: ListingPosition;
}

/**
 * S3's ListObjectsV2 semantics over a sorted key list: keys under the delimiter roll up into common
 * prefixes, and max-keys counts keys and common prefixes together (s3rver counted keys only and
 * returned every common prefix it met).
 */
export function selectListObjectsV2(sortedKeys: readonly string[], query: ListObjectsV2Query): ListObjectsV2Selection {
  const keys: string[] = [];
  const commonPrefixes: string[] = [];
  let last: ListingPosition | undefined;
  for (const key of sortedKeys) {
    if (!key.startsWith(query.prefix) || !isAfter(key, query)) continue;
    const commonPrefix = commonPrefixOf(key, query);
    if (commonPrefix !== undefined && commonPrefix === last?.key) continue;
    if (keys.length + commonPrefixes.length === query.maxKeys) {
      return { keys, commonPrefixes, isTruncated: true, next: last };
    }
    if (commonPrefix === undefined) {
      keys.push(key);
      last = { key, isCommonPrefix: false };
    } else {
      commonPrefixes.push(commonPrefix);
      last = { key: commonPrefix, isCommonPrefix: true };
    }
  }
  return { keys, commonPrefixes, isTruncated: false };
}

function commonPrefixOf(key: string, { prefix, delimiter }: ListObjectsV2Query): string | undefined {
  if (!delimiter) return undefined;
  const index = key.indexOf(delimiter, prefix.length);
  return index === -1 ? undefined : key.slice(0, index + delimiter.length);
}

function isAfter(key: string, { startAfter, continueAfter }: ListObjectsV2Query): boolean {
  if (!continueAfter) return compareKeys(key, startAfter) > 0;
  // A continuation after a common prefix has already covered every key inside it.
  if (continueAfter.isCommonPrefix && key.startsWith(continueAfter.key)) return false;
  return compareKeys(key, continueAfter.key) > 0;
}

export function encodeContinuationToken(position: ListingPosition): string {
  return Buffer.from(JSON.stringify([position.key, position.isCommonPrefix]), 'utf8').toString('base64url');
}

/** undefined for a token this server did not issue. */
export function decodeContinuationToken(token: string): ListingPosition | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'boolean') {
      return { key: value[0], isCommonPrefix: value[1] };
    }
  } catch {
    // fall through: not one of ours
  }
  return undefined;
}
