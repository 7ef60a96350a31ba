import { StoredZipWriter, type ObjectStore, type StoredZipEntry } from '@platform/s3';

export interface ExportZip {
  /** Appends a drawn file; resolves with where its bytes are in the zip once written (waits while the upload is behind). */
  add(name: string, bytes: Buffer): Promise<StoredZipEntry>;
  /** Appends the manifest, ends the zip and resolves when the object is stored, with its size. */
  finish(manifestJson: string): Promise<number>;
  /** Stops the upload: nothing is stored under the key. */
  abandon(error: Error): Promise<void>;
}

/**
 * The export's zip, streamed into the store under `key` while the creatives are drawn: one object that
 * appears whole or not at all (a repeated job overwrites it). Entries are stored uncompressed (images and
 * videos are compressed already), so each file is a contiguous byte range of the zip that a server can
 * read on its own (`readStoredZipEntry`); the manifest, added last, lists those offsets.
 */
export function openExportZip(store: ObjectStore, key: string, createdAt: Date): ExportZip {
  const zip = new StoredZipWriter({ modified: createdAt });
  const put = store.putObject(key, zip.output, { contentType: 'application/zip' });
  // A failed upload fails the adds waiting on it (rather than leaving them waiting for a reader that is gone);
  // finish and abandon await the put itself.
  put.catch((error: unknown) => zip.abort(error instanceof Error ? error : new Error(String(error))));
  return {
    add: (name, bytes) => zip.add(name, bytes),
    async finish(manifestJson) {
      await zip.add('manifest.json', Buffer.from(manifestJson));
      await zip.end();
      return (await put).size;
    },
    async abandon(error) {
      zip.abort(error);
      await put.catch(() => undefined);
    },
  };
}
