import { assetFileNameViolation, assetPathViolation, joinAssetPath, STORAGE_LIMITS } from '@contracts/domain';
import { JobFailed } from '@platform/jobs';
import type { Entry } from 'yauzl';

export interface ZipLimits {
  maxEntries: number;
  maxTotalBytes: number;
  maxRatio: number;
  /** Entries (and archives) smaller than this once extracted are not held to the ratio: tiny files of one repeated byte compress absurdly well and are harmless. */
  ratioFloorBytes: number;
}

export const DEFAULT_ZIP_LIMITS: ZipLimits = {
  maxEntries: STORAGE_LIMITS.zipMaxEntries,
  maxTotalBytes: STORAGE_LIMITS.zipMaxTotalBytes,
  maxRatio: STORAGE_LIMITS.zipMaxCompressionRatio,
  ratioFloorBytes: 1024 * 1024,
};

/** One file of an archive that passed inspection, and where it lands in the library. */
export interface PlannedEntry {
  name: string;
  /** Path inside the library (target folder + entry name). */
  target: string;
  size: number;
}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

export const entryName = (entry: Entry) => Buffer.from(entry.fileName as unknown as Buffer).toString('utf8');

/**
 * Decides from the central directory, before a byte is written, whether an archive may be extracted
 * into `folder`: every name obeys the library's seven rules (so no absolute or `..` entry), no
 * symlink, no encrypted entry, and the entry count, total size and compression ratios stay under the
 * caps. Any breach fails the whole job, naming the entry and the reason: a zip either lands whole or
 * not at all. (yauzl's validateEntrySizes then holds each entry to its declared size while it is read.)
 */
export function planExtraction(entries: Entry[], folder: string, archiveBytes: number, limits: ZipLimits = DEFAULT_ZIP_LIMITS): PlannedEntry[] {
  if (entries.length > limits.maxEntries) throw new JobFailed(`The zip holds ${entries.length} entries; at most ${limits.maxEntries} are allowed.`);
  const planned: PlannedEntry[] = [];
  let total = 0;
  for (const entry of entries) {
    const name = entryName(entry);
    const refuse = (reason: string) => new JobFailed(`The zip entry ${JSON.stringify(name.slice(0, 200))} is not allowed: ${reason}`);
    if (name.includes('\\')) throw refuse('entry names must use "/" as the separator.');
    const isFolder = name.endsWith('/');
    const broken = isFolder ? assetPathViolation(name) : assetFileNameViolation(name);
    if (broken) throw refuse(broken.detail);
    const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
    if (mode === S_IFLNK) throw refuse('symbolic links are not extracted.');
    if ((entry.generalPurposeBitFlag & 0x1) !== 0) throw refuse('encrypted entries are not supported.');
    if (isFolder) continue;
    const target = joinAssetPath(folder, name);
    const targetBroken = assetPathViolation(target);
    if (targetBroken) throw refuse(targetBroken.detail);
    const size = entry.uncompressedSize;
    if (size > limits.ratioFloorBytes && size / Math.max(1, entry.compressedSize) > limits.maxRatio) {
      throw refuse(`it expands ${Math.round(size / Math.max(1, entry.compressedSize))} times; at most ${limits.maxRatio} is allowed.`);
    }
    total += size;
    if (total > limits.maxTotalBytes) throw new JobFailed(`The zip expands to more than ${limits.maxTotalBytes} bytes; that is the most allowed.`);
    planned.push({ name, target, size });
  }
  if (total > limits.ratioFloorBytes && total / Math.max(1, archiveBytes) > limits.maxRatio) {
    throw new JobFailed(`The zip expands ${Math.round(total / Math.max(1, archiveBytes))} times; at most ${limits.maxRatio} is allowed.`);
  }
  return planned;
}
