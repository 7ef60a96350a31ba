import type { FieldRuleCode } from './problems/field-rules';
/**
 * The asset library's path and file-name rules and the storage limits, shared by the gateway (which
 * refuses a bad path before streaming a byte), storage-library (which re-checks what it stores) and
 * the storage worker (which checks every zip entry and every copied object name).
 */

/** Longest path or file name the library accepts, in characters (rule 6). */
export const ASSET_PATH_MAX = 512;

/** The extensions a library file may have, by category; zip archives are extracted on upload. */
export const ASSET_EXTENSION_CATEGORIES = {
  Images: ['jpg', 'jpeg', 'png', 'gif', 'webp', 'svg', 'bmp', 'tiff', 'ico'],
  Documents: ['pdf', 'doc', 'docx', 'xls', 'xlsx', 'ppt', 'pptx', 'txt', 'rtf', 'csv'],
  Media: ['mp4', 'avi', 'mov', 'wmv', 'flv', 'webm', 'mkv', 'mp3', 'wav', 'ogg', 'm4a'],
  'Web files': ['html', 'htm', 'css', 'js', 'json', 'xml'],
  Fonts: ['ttf', 'otf', 'woff', 'woff2'],
  Archives: ['zip'],
} as const;

export const ASSET_ALLOWED_EXTENSIONS: readonly string[] = Object.values(ASSET_EXTENSION_CATEGORIES).flat();

/** A broken rule: its number (1 to 7), a stable code and a message that names the rule. */
export interface AssetPathViolation {
  rule: number;
  code: FieldRuleCode;
  detail: string;
}

const violation = (rule: number, code: FieldRuleCode, what: string): AssetPathViolation => ({ rule, code, detail: `Rule ${rule}: ${what}` });

// C0 controls, including the null byte (rule 1): matching them is the point.
// eslint-disable-next-line no-control-regex
const C0_CONTROL = /[\u0000-\u001f]/;
// DEL, the C1 controls (NEL among them) and the Latin-1 supplement U+00A0 to U+00FF (rule 2).
const OTHER_DISALLOWED = /[\u007f-\u00ff]/;

/**
 * Checks a folder path (or a file name, which obeys the same rules) against rules 1 to 6, in order,
 * and answers the first one broken. An empty path is the library's root and is valid.
 */
export function assetPathViolation(path: string): AssetPathViolation | undefined {
  if (path.includes('\u0000')) return violation(1, 'PATH_NULL_BYTE', 'a path must not contain a null byte.');
  const control = C0_CONTROL.exec(path);
  if (control) return violation(1, 'PATH_CONTROL_CHARACTER', `a path must not contain ASCII control characters (found ${codePoint(control[0])}).`);
  const other = OTHER_DISALLOWED.exec(path);
  if (other) {
    return violation(
      2,
      'PATH_DISALLOWED_CHARACTER',
      `a path must not contain DEL, C1 control or Latin-1 supplement characters (found ${codePoint(other[0])}).`,
    );
  }
  if (path.includes('..') || path.includes('./')) return violation(3, 'PATH_TRAVERSAL', 'a path must not contain ".." or "./".');
  if (path.startsWith('/')) return violation(4, 'PATH_ABSOLUTE', 'a path must not start with "/".');
  if (path.includes('//')) return violation(5, 'PATH_DOUBLE_SLASH', 'a path must not contain "//".');
  if ([...path].length > ASSET_PATH_MAX) return violation(6, 'PATH_TOO_LONG', `a path must not exceed ${ASSET_PATH_MAX} characters.`);
  return undefined;
}

/** The extension of a file name, lower-cased, or '' when it has none. */
export function assetExtension(fileName: string): string {
  const base = fileName.slice(fileName.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot <= 0 ? '' : base.slice(dot + 1).toLowerCase();
}

/** Rule 7, on top of rules 1 to 6: a file name must end in one of the allowed extensions. */
export function assetFileNameViolation(fileName: string): AssetPathViolation | undefined {
  if (fileName.length === 0 || fileName.endsWith('/')) return violation(7, 'FILE_NAME_MISSING', 'a file name is required.');
  const pathRule = assetPathViolation(fileName);
  if (pathRule) return pathRule;
  const extension = assetExtension(fileName);
  if (!ASSET_ALLOWED_EXTENSIONS.includes(extension)) {
    const named = extension ? `".${extension}"` : '(none)';
    return violation(7, 'EXTENSION_NOT_ALLOWED', `the file extension ${named} is not allowed; allowed: ${ASSET_ALLOWED_EXTENSIONS.join(', ')}.`);
  }
  return undefined;
}

/** A folder path without its trailing slash; '' for the root. */
export const normalizeFolder = (path: string) => path.replace(/\/+$/, '');

/** Joins a folder path and a name with exactly one slash. */
export const joinAssetPath = (folder: string, name: string) => (normalizeFolder(folder) ? `${normalizeFolder(folder)}/${name}` : name);

function codePoint(char: string): string {
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Limits of uploads and zip extraction; each is enforced (413 at the edge, or a failed queue). */
export const STORAGE_LIMITS = {
  /** Largest file one upload may carry; a larger one is refused with 413 and nothing is kept. */
  uploadMaxBytes: 200 * 1024 * 1024,
  /** Most entries (files and folders) a zip may hold. */
  zipMaxEntries: 10_000,
  /** Most bytes a zip's files may hold once extracted, together. */
  zipMaxTotalBytes: 1024 * 1024 * 1024,
  /** Highest uncompressed/compressed ratio of one entry or of the whole archive (zip bombs compress far better). */
  zipMaxCompressionRatio: 200,
  /** Most files and folders one cloud copy request names. */
  copyMaxItems: 1_000,
  /** Most objects one cloud copy may copy after expanding its folders. */
  copyMaxObjects: 10_000,
  /** Largest single object a cloud copy takes; a larger one is reported as failed and the rest go on. */
  copyMaxObjectBytes: 5 * 1024 * 1024 * 1024,
} as const;

export const CLOUD_SERVICE_TYPES = ['objstore'] as const;

/** The job kinds of the storage worker, as they appear in the queue view and on progress subjects. */
export const STORAGE_JOB_KINDS = { upload: 'asset-upload', cloudCopy: 'cloud-copy' } as const;

/** The request a cloud copy job carries: where to read, and what. The credentials stay sealed. */
export interface CloudCopyJob {
  source: { endpoint: string; region: string; bucket: string; sealedCredentials: string };
  /** Folder in the customer's bucket the names are relative to ('' for the bucket's root). */
  sourcePrefix: string;
  files: string[];
  folders: string[];
}

/** The request an upload job carries: the staged bytes and where they go in the library. */
export interface UploadJob {
  stagingKey: string;
  /** Target folder in the library ('' for the root). */
  path: string;
  fileName: string;
  sizeBytes: number;
}

/** Where the edge stages an upload before the worker places it: outside every account's library. */
export const uploadStagingKey = (accountId: number, id: string) => `staging/uploads/${accountId}/${id}`;

/** Where the gateway serves an account's files (library files, kept export files), under the public base. */
export const accountFileUrl = (publicBase: string, accountId: number, path: string): string =>
  `${publicBase}/files/accounts/${accountId}/${path.split('/').map(encodeURIComponent).join('/')}`;

/** A file stored uncompressed inside a zip: its name in the zip, where its bytes start, and how many there are. */
export interface ZipEntryLocation {
  name: string;
  offset: number;
  bytes: number;
}

/** The query parameters naming one entry of a zip on its file URL (`?entry=<name>&at=<offset>&bytes=<n>`). */
export const ZIP_ENTRY_QUERY = { name: 'entry', offset: 'at', bytes: 'bytes' } as const;

/**
 * Where the gateway serves one entry of a stored zip among the account's files (an export's still): the zip's
 * own URL naming the entry, answered with that entry's bytes only, read from the store with one range request.
 */
export const accountZipEntryUrl = (publicBase: string, accountId: number, zipPath: string, entry: ZipEntryLocation): string =>
  `${accountFileUrl(publicBase, accountId, zipPath)}?${ZIP_ENTRY_QUERY.name}=${encodeURIComponent(entry.name)}` +
  `&${ZIP_ENTRY_QUERY.offset}=${entry.offset}&${ZIP_ENTRY_QUERY.bytes}=${entry.bytes}`;
