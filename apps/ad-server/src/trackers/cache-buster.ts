import { randomInt } from 'node:crypto';

/**
 * Cache-buster macros in third-party tracker URLs.
 *
 * Trackers are pasted by trafficking teams from many ad servers, so the same intent ("a random number per
 * response") shows up under several spellings. `[CACHEBUSTING]` is the IAB VAST macro; the others are the
 * spellings ad servers commonly hand out (`${CACHEBUSTER}`, `%%CACHEBUSTER%%`, DCM's `[timestamp]`, ...).
 * Nobody downstream of us expands the non-VAST spellings, so we expand all of them ourselves.
 *
 * Every other macro (`[TIMESTAMP]`, `[ERRORCODE]`, `[ASSETURI]`, ...) is left untouched: in VAST the video
 * player fills those in.
 */
export const CACHE_BUSTER_MACROS: readonly string[] = [
  '[CACHEBUSTING]',
  '[CACHEBUSTER]',
  '${CACHEBUSTER}',
  '${CACHEBUSTING}',
  '%%CACHEBUSTER%%',
  '%%CACHEBUSTING%%',
  '{CACHEBUSTER}',
  '[timestamp]',
  '[RANDOM]',
  '[random]',
];

const MACRO_PATTERN = new RegExp(CACHE_BUSTER_MACROS.map((m) => m.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');

/** An 8-digit random number (10000000..99999999), as the IAB [CACHEBUSTING] macro asks. */
export function newCacheBuster(): string {
  return String(randomInt(10_000_000, 100_000_000));
}

/**
 * A tracker URL split once around its cache-buster macros: `parts` holds the literal text between them (made
 * URI-safe, see `uriSafe`), so per response only a join is left. A URL with no macro has a single part.
 */
export interface CompiledTrackerUrl {
  readonly parts: readonly string[];
}

/**
 * Characters an RFC 3986 URI cannot hold literally: whitespace and controls, double quote, angle brackets,
 * backslash, caret, backtick, braces, pipe, square brackets, and a `%` that starts no `%XX` escape.
 * Trackers pasted by hand carry such characters; HTTP clients would escape them anyway. VAST `[MACRO]`
 * tokens stay as they are for the player to fill in. Other ad servers' macros left in a tracker
 * (`${GDPR}`, `%%SITE%%`) are expanded by nobody downstream of us, so they are encoded like any other text.
 */
// eslint-disable-next-line no-control-regex
const URI_UNSAFE_OR_MACRO = /(\[[A-Za-z0-9_]+\])|[\u0000-\u0020\u007F"<>\\^`{|}[\]]|%(?![0-9A-Fa-f]{2})/g;
// eslint-disable-next-line no-control-regex
const URI_UNSAFE_ANY = /[\u0000-\u0020\u007F"<>\\^`{|}[\]]|%(?![0-9A-Fa-f]{2})/;

const percentEncode = (c: string) => '%' + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0');

/** `url` with the characters a URI may not hold percent-encoded, macro tokens kept as they are. */
export function uriSafe(url: string): string {
  if (!URI_UNSAFE_ANY.test(url)) return url;
  return url.replace(URI_UNSAFE_OR_MACRO, (match: string, macro: string | undefined) => macro ?? percentEncode(match));
}

const COMPILED_MAX = 10_000;
const compiled = new Map<string, CompiledTrackerUrl>();

/** Splits `url` around its cache-buster macros; memoised, since the same tracker URLs serve every request. */
export function compileTrackerUrl(url: string): CompiledTrackerUrl {
  let hit = compiled.get(url);
  if (hit) return hit;
  hit = { parts: url.split(MACRO_PATTERN).map(uriSafe) };
  if (compiled.size >= COMPILED_MAX) compiled.delete(compiled.keys().next().value as string);
  compiled.set(url, hit);
  return hit;
}

/** `url` with every cache-buster macro replaced by `cacheBuster` (the same value for the whole response). */
export function expandCacheBusters(url: string, cacheBuster: string): string {
  const { parts } = compileTrackerUrl(url);
  return parts.length === 1 ? parts[0] : parts.join(cacheBuster);
}

/**
 * The URLs of the named fields of a placement's tracker record (field name -> URLs), in field order,
 * blank entries dropped, cache busters expanded.
 */
export function trackerUrls(
  trackers: Readonly<Record<string, readonly string[] | undefined>> | undefined,
  fields: readonly string[],
  cacheBuster: string,
): string[] {
  const out: string[] = [];
  if (!trackers) return out;
  for (const field of fields) {
    const urls = trackers[field];
    if (!urls) continue;
    for (const raw of urls) {
      const url = raw.trim();
      if (url) out.push(expandCacheBusters(url, cacheBuster));
    }
  }
  return out;
}
