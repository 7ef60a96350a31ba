import type { Readable } from 'node:stream';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { JobFailed } from '@platform/jobs';

/** Names are decoded by the inspection (our rules, our messages), not by yauzl, which would refuse some with its own. */
const OPEN_OPTIONS = { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true, strictFileNames: false } as const;

export async function openZip(path: string): Promise<ZipFile> {
  try {
    return await new Promise<ZipFile>((resolve, reject) => yauzl.open(path, OPEN_OPTIONS, (error, zip) => (error ? reject(error) : resolve(zip))));
  } catch (error) {
    throw new JobFailed(`The file is not a readable zip archive (${error instanceof Error ? error.message : String(error)}).`);
  }
}

/** Every entry of the central directory, without reading any data. */
export async function readEntries(zip: ZipFile): Promise<Entry[]> {
  const entries: Entry[] = [];
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: Entry) => {
      entries.push(entry);
      zip.readEntry();
    });
    zip.once('end', () => resolve());
    zip.once('error', (error: Error) => reject(new JobFailed(`The zip archive is corrupt (${error.message}).`)));
    zip.readEntry();
  });
  zip.removeAllListeners();
  return entries;
}

export function openEntry(zip: ZipFile, entry: Entry): Promise<Readable> {
  return new Promise((resolve, reject) => zip.openReadStream(entry, (error, stream) => (error ? reject(error) : resolve(stream))));
}
