import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assetExtension, assetFileNameViolation, assetPathViolation, joinAssetPath, STORAGE_JOB_KINDS, type UploadJob } from '@contracts/domain';
import { JobFailed, type JobHandler } from '@platform/jobs';
import type { ObjectStore } from '@platform/s3';
import { contentTypeOf } from '../content-type';
import type { Entry, ZipFile } from 'yauzl';
import { entryName, planExtraction, type PlannedEntry, type ZipLimits } from './zip-inspection';
import { openEntry, openZip, readEntries } from './zip-reader';

export interface UploadJobDeps {
  store: ObjectStore;
  tmpDir?: string;
  zipLimits?: ZipLimits;
  /** Progress is reported every this many entries. */
  progressEvery?: number;
  /** Entries written at once. */
  extractConcurrency?: number;
}

/**
 * One entry into its key. An entry whose data does not match its header (a bomb that lies about its
 * size, a bad CRC) fails the job with the reason rather than being retried; the object being written
 * is aborted, so nothing half-written appears.
 */
async function extractEntry(store: ObjectStore, key: string, zip: ZipFile, entry: Entry, planned: PlannedEntry): Promise<void> {
  let data: Readable;
  try {
    data = await openEntry(zip, entry);
  } catch (error) {
    throw new JobFailed(`The zip entry ${JSON.stringify(planned.name)} cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  let zipError: Error | undefined;
  data.once('error', (error) => {
    zipError = error;
  });
  try {
    await store.putObject(key, data, { size: planned.size, contentType: contentTypeOf(planned.target) });
  } catch (error) {
    if (zipError) throw new JobFailed(`The zip entry ${JSON.stringify(planned.name)} is corrupt: ${zipError.message}`);
    throw error;
  }
}

export const libraryKey = (accountId: number, path: string) => `accounts/${accountId}/${path}`;

/**
 * Places an uploaded file the edge staged: a plain file is copied to its folder, a zip is inspected
 * whole and then extracted entry by entry. Every key is fixed by the job, so a re-run overwrites
 * rather than duplicates, and each object appears whole or not at all.
 */
export function uploadJob({ store, tmpDir, zipLimits, progressEvery = 50, extractConcurrency = 8 }: UploadJobDeps): JobHandler<UploadJob> {
  return {
    kind: STORAGE_JOB_KINDS.upload,

    async run({ accountId, payload }, sink) {
      const broken = assetPathViolation(payload.path) ?? assetFileNameViolation(payload.fileName);
      if (broken) throw new JobFailed(broken.detail);
      const staged = await store.statObject(payload.stagingKey);
      if (!staged) throw new JobFailed('The uploaded file is no longer available; upload it again.');

      if (assetExtension(payload.fileName) !== 'zip') {
        const target = joinAssetPath(payload.path, payload.fileName);
        await store.putObject(libraryKey(accountId, target), await store.getObject(payload.stagingKey), {
          size: staged.size,
          contentType: contentTypeOf(target),
        });
        return { totalItems: 1, totalProcessed: 1, message: `Uploaded ${target}.` };
      }

      const dir = await mkdtemp(join(tmpDir ?? tmpdir(), 'upload-'));
      try {
        const file = join(dir, 'archive.zip');
        await pipeline(await store.getObject(payload.stagingKey), createWriteStream(file));
        const zip = await openZip(file);
        try {
          const entries = await readEntries(zip);
          const plan = planExtraction(entries, payload.path, (await stat(file)).size, zipLimits);
          await sink.progress(0, plan.length, `Extracting ${plan.length} files`);
          const files = entries.filter((entry) => !entryName(entry).endsWith('/'));
          let done = 0;
          let next = 0;
          // A few entries in flight at once: small files are bound by the store's round trips, not by bytes.
          let failed = false;
          const lane = async () => {
            while (next < plan.length && !failed) {
              const index = next++;
              try {
                await extractEntry(store, libraryKey(accountId, plan[index].target), zip, files[index], plan[index]);
              } catch (error) {
                failed = true;
                throw error;
              }
              done++;
              if (done % progressEvery === 0 && done < plan.length) await sink.progress(done, plan.length, `Extracted ${done} of ${plan.length} files`);
            }
          };
          // Every lane settles before the archive closes; the first failure is the job's.
          const lanes = await Promise.allSettled(Array.from({ length: Math.min(extractConcurrency, plan.length) }, lane));
          const failure = lanes.find((lane): lane is PromiseRejectedResult => lane.status === 'rejected');
          if (failure) throw failure.reason;
          return { totalItems: plan.length, totalProcessed: done, message: `Extracted ${done} files from ${payload.fileName}.` };
        } finally {
          zip.close();
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },

    async cleanup({ payload }) {
      await store.deleteObject(payload.stagingKey);
    },
  };
}
