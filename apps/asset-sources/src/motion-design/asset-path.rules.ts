import { blankOrTooLong, type FieldError } from '@platform/errors';

/**
 * The asset library's path rules, as the interface numbers them (1 to 6; the library also checks
 * extensions on upload). A motion-design asset is named by its library path, so a path the library
 * could never hold is refused here with the rule it breaks.
 */
const ASSET_PATH_MAX = 512;

const RULES: readonly [number, string, (path: string) => boolean, string][] = [
  [1, 'PATH_CONTROL_CHARACTER', (p) => [...p].some((ch) => ch.charCodeAt(0) < 0x20), 'a path must not contain a null byte or ASCII control characters.'],
  [2, 'PATH_DISALLOWED_CHARACTER', (p) => /[\u007f-\u00ff]/.test(p), 'a path must not contain DEL, C1 control or Latin-1 supplement characters.'],
  [3, 'PATH_TRAVERSAL', (p) => p.includes('..') || p.includes('./'), 'a path must not contain ".." or "./".'],
  [4, 'PATH_ABSOLUTE', (p) => p.startsWith('/'), 'a path must not start with "/".'],
  [5, 'PATH_DOUBLE_SLASH', (p) => p.includes('//'), 'a path must not contain "//".'],
  [6, 'PATH_TOO_LONG', (p) => [...p].length > ASSET_PATH_MAX, `a path must not exceed ${ASSET_PATH_MAX} characters.`],
];

/** The first rule an asset path breaks, as a field error at `pointer`; none when it keeps them all. */
export function assetPathErrors(pointer: string, path: string): FieldError[] {
  const blank = blankOrTooLong(pointer, path, ASSET_PATH_MAX * 4);
  if (blank.length > 0) return blank;
  const broken = RULES.find(([, , breaks]) => breaks(path));
  return broken ? [{ pointer, code: broken[1], detail: `assetId is an asset-library path; rule ${broken[0]}: ${broken[3]}` }] : [];
}
