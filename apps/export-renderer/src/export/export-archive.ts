import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { ZipFile } from 'yazl';
import type { ObjectStore } from '@platform/s3';

/**
 * Packs files from disk and the manifest into one zip and stores it under `key` in a single put, so
 * the zip appears whole or not at all; a repeated job overwrites the same key with the same content.
 */
export async function storeExportZip(
  store: ObjectStore,
  key: string,
  zipPath: string,
  files: readonly { path: string; name: string }[],
  manifestJson: string,
): Promise<number> {
  const zip = new ZipFile();
  // Images and videos are compressed already; storing them saves the CPU a deflate would waste.
  for (const file of files) zip.addFile(file.path, file.name, { compress: false });
  zip.addBuffer(Buffer.from(manifestJson), 'manifest.json');
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(zipPath));
  const { size } = await stat(zipPath);
  await store.putObject(key, createReadStream(zipPath), { size, contentType: 'application/zip' });
  return size;
}
