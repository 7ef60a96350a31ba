import { InvalidObjectKeyError } from './object-store.errors';

/** S3's own limit on a key, in UTF-8 bytes. */
export const MAX_KEY_BYTES = 1024;

// Control characters break XML listings and log lines, and some S3 implementations reject them.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/**
 * Keys come partly from customers (file names, folder names), and the embedded server and some
 * gateways map keys onto file paths, so anything that could climb out of a prefix is refused here,
 * before a request is made.
 */
export function validateObjectKey(key: string): string {
  const problem = keyProblem(key);
  if (problem) throw new InvalidObjectKeyError(key, problem);
  return key;
}

/** A listing or deletion prefix follows the key rules; only listings may use the empty prefix (whole bucket). */
export function validatePrefix(prefix: string, { allowEmpty }: { allowEmpty: boolean }): string {
  if (prefix === '') {
    if (allowEmpty) return prefix;
    throw new InvalidObjectKeyError(prefix, 'an empty prefix would select the whole bucket');
  }
  return validateObjectKey(prefix);
}

/** '' means no grouping; otherwise any separator without control characters. */
export function validateDelimiter(delimiter: string): string {
  if (CONTROL_CHARACTER.test(delimiter)) throw new InvalidObjectKeyError(delimiter, 'a delimiter must not contain control characters');
  return delimiter;
}

function keyProblem(key: string): string | null {
  if (typeof key !== 'string' || key.length === 0) return 'must be a non-empty string';
  if (Buffer.byteLength(key, 'utf8') > MAX_KEY_BYTES) return `must be at most ${MAX_KEY_BYTES} bytes in UTF-8`;
  if (key.startsWith('/')) return 'must not start with "/"';
  if (key.includes('..')) return 'must not contain ".."';
  if (key.includes('//')) return 'must not contain "//"';
  if (CONTROL_CHARACTER.test(key)) return 'must not contain control characters';
  return null;
}

/**
 * The one place that spells the per-account layout `accounts/<accountId>/...`.
 * With no parts it returns the account's prefix, ending in "/", for listings and deletions.
 */
export function accountKey(accountId: number, ...parts: string[]): string {
  if (!Number.isSafeInteger(accountId) || accountId < 0) {
    throw new InvalidObjectKeyError(String(accountId), 'accountId must be a non-negative integer');
  }
  const empty = parts.findIndex((part) => part.length === 0);
  if (empty !== -1) {
    throw new InvalidObjectKeyError(parts.join('/'), `part ${empty + 1} is empty`);
  }
  const key = parts.length === 0 ? `accounts/${accountId}/` : `accounts/${accountId}/${parts.join('/')}`;
  return validateObjectKey(key);
}
