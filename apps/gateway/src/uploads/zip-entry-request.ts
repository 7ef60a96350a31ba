import { ZIP_ENTRY_QUERY, type ZipEntryLocation } from '@contracts/domain';

/** Largest entry served out of a zip: the gateway holds it in memory while answering. */
export const MAX_SERVED_ZIP_ENTRY_BYTES = 64 * 1024 * 1024;

const DECIMAL = /^(0|[1-9]\d{0,14})$/;

/** The entry a file URL's query names (`accountZipEntryUrl`); undefined when the query is not one. */
export function zipEntryOf(query: Record<string, unknown>): ZipEntryLocation | undefined {
  const name = query[ZIP_ENTRY_QUERY.name];
  const offset = query[ZIP_ENTRY_QUERY.offset];
  const bytes = query[ZIP_ENTRY_QUERY.bytes];
  if (typeof name !== 'string' || typeof offset !== 'string' || typeof bytes !== 'string') return undefined;
  if (name === '' || name.length > 255 || !DECIMAL.test(offset) || !DECIMAL.test(bytes)) return undefined;
  const entry = { name, offset: Number(offset), bytes: Number(bytes) };
  return entry.bytes <= MAX_SERVED_ZIP_ENTRY_BYTES ? entry : undefined;
}

const TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  mp4: 'video/mp4',
  json: 'application/json',
};

/** The content type of an entry, by its name's extension (the formats an export writes). */
export const zipEntryType = (name: string): string => TYPES[/\.([a-z0-9]+)$/i.exec(name)?.[1].toLowerCase() ?? ''] ?? 'application/octet-stream';
