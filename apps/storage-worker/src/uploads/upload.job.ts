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
export function uploadJob({ store, tmpDir, zipLimits, progressEvery = 50 }: UploadJobDeps): JobHandler<UploadJob> {
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
          for (const [index, planned] of plan.entries()) {
            await extractEntry(store, libraryKey(accountId, planned.target), zip, files[index], planned);
            done++;
            if (done % progressEvery === 0 && done < plan.length) await sink.progress(done, plan.length, `Extracted ${done} of ${plan.length} files`);
          }
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
