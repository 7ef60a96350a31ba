import { assetFileNameViolation, STORAGE_JOB_KINDS, STORAGE_LIMITS, type CloudCopyJob } from '@contracts/domain';
import { JobFailed, openCustomerBucket, s3CodeOf, type JobHandler } from '@platform/jobs';
import type { ObjectStore } from '@platform/s3';
import type { SecretBox } from '@platform/secrets';
import type { Client } from 'minio';
import { contentTypeOf } from '../content-type';
import { libraryKey } from '../uploads/upload.job';

export interface CloudCopyDeps {
  store: ObjectStore;
  box: SecretBox;
  allowlist: readonly string[];
  progressEvery?: number;
  /** Largest object copied; STORAGE_LIMITS.copyMaxObjectBytes by default. */
  maxObjectBytes?: number;
}

interface SourceObject {
  /** Key in the customer's bucket. */
  key: string;
  /** Path the copy gets in the library, relative to the source folder. */
  target: string;
  size?: number;
}

const MAX_FAILURES_LISTED = 10;

/**
 * Copies named files and whole folders from a customer's bucket into the account's library, each
 * object streamed (never held whole) to a key fixed by its source path, so a re-run overwrites. A
 * file that fails (refused name, gone, unreadable) is reported and the rest go on; the job fails
 * only when nothing could be copied.
 */
export function cloudCopyJob({
  store,
  box,
  allowlist,
  progressEvery = 20,
  maxObjectBytes = STORAGE_LIMITS.copyMaxObjectBytes,
}: CloudCopyDeps): JobHandler<CloudCopyJob> {
  return {
    kind: STORAGE_JOB_KINDS.cloudCopy,

    async run({ accountId, payload }, sink) {
      const credentials = JSON.parse(box.open(Buffer.from(payload.source.sealedCredentials, 'base64'))) as { accessKey: string; secretKey: string };
      let client: Client;
      try {
        client = openCustomerBucket({ ...payload.source, ...credentials }, allowlist);
      } catch (error) {
        throw new JobFailed(error instanceof Error ? error.message : 'The endpoint is not allowed.');
      }
      const { bucket } = payload.source;
      const base = payload.sourcePrefix ? `${payload.sourcePrefix}/` : '';
      const objects: SourceObject[] = payload.files.map((name) => ({ key: `${base}${name}`, target: name }));
      for (const folder of payload.folders) {
        for (const found of await listRecursive(client, bucket, `${base}${folder}/`)) {
          objects.push({ key: found.key, target: found.key.slice(base.length), size: found.size });
          if (objects.length > STORAGE_LIMITS.copyMaxObjects)
            throw new JobFailed(`The copy holds more than ${STORAGE_LIMITS.copyMaxObjects} files; copy fewer folders at once.`);
        }
      }
      await sink.progress(0, objects.length, `Copying ${objects.length} files`);

      const failures: string[] = [];
      let processed = 0;
      for (const object of objects) {
        const failure = await copyOne(client, bucket, object, accountId, store, maxObjectBytes);
        if (failure) failures.push(`${object.target}: ${failure}`);
        processed++;
        if (processed % progressEvery === 0 && processed < objects.length)
          await sink.progress(processed, objects.length, `Copied ${processed} of ${objects.length} files`);
      }
      const copied = objects.length - failures.length;
      const failed =
        failures.length === 0
          ? ''
          : ` Failed ${failures.length}: ${failures.slice(0, MAX_FAILURES_LISTED).join('; ')}${failures.length > MAX_FAILURES_LISTED ? '; ...' : ''}`;
      if (copied === 0 && objects.length > 0) throw new JobFailed(`Copied none of ${objects.length} files.${failed}`);
      return { totalItems: objects.length, totalProcessed: processed, message: `Copied ${copied} of ${objects.length} files.${failed}` };
    },
  };
}

/** One object, or the reason it could not be copied (never a credential). */
async function copyOne(
  client: Client,
  bucket: string,
  object: SourceObject,
  accountId: number,
  store: ObjectStore,
  maxBytes: number,
): Promise<string | undefined> {
  const broken = assetFileNameViolation(object.target);
  if (broken) return broken.detail;
  try {
    const size = object.size ?? (await client.statObject(bucket, object.key)).size;
    if (size > maxBytes) return `larger than ${maxBytes} bytes, the most one file may hold`;
    await store.putObject(libraryKey(accountId, object.target), await client.getObject(bucket, object.key), {
      size,
      contentType: contentTypeOf(object.target),
    });
    return undefined;
  } catch (error) {
    const code = s3CodeOf(error);
    if (code === 'NotFound' || code === 'NoSuchKey') return 'not found';
    return code ? `the source answered ${code}` : 'it could not be read';
  }
}

async function listRecursive(client: Client, bucket: string, prefix: string): Promise<{ key: string; size: number }[]> {
  const found: { key: string; size: number }[] = [];
  let after = '';
  try {
    for (;;) {
      const page = await client.listObjectsV2Query(bucket, prefix, '', '', 1000, after);
      for (const item of page.objects) if (item.name && !item.name.endsWith('/')) found.push({ key: item.name, size: Number(item.size) });
      const last = page.objects[page.objects.length - 1]?.name;
      if (!page.isTruncated || !last || found.length > STORAGE_LIMITS.copyMaxObjects) return found;
      after = last;
    }
  } catch (error) {
    const code = s3CodeOf(error);
    throw new JobFailed(`Listing ${prefix} in the source bucket failed${code ? ` (${code})` : ''}.`);
  }
}
