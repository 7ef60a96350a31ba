import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ZipFile } from 'yazl';
import { directSink, JobFailed, type JobProgressSink } from '@platform/jobs';
import { createObjectStore, startEmbeddedS3, type EmbeddedS3, type ObjectStore } from '@platform/s3';
import { uploadJob } from './upload.job';

jest.setTimeout(60_000);

async function zipOf(entries: { name: string; data: Buffer }[]): Promise<Buffer> {
  const zip = new ZipFile();
  for (const entry of entries) zip.addBuffer(entry.data, entry.name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Rewrites the uncompressed size the central directory declares for every entry, as a lying bomb does. */
function declareUncompressedSize(zip: Buffer, size: number): Buffer {
  const patched = Buffer.from(zip);
  for (let at = patched.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])); at >= 0; at = patched.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), at + 4)) {
    patched.writeUInt32LE(size, at + 24);
  }
  return patched;
}

describe('upload job (real S3)', () => {
  let s3: EmbeddedS3;
  let dir: string;
  let store: ObjectStore;
  const progress: [number, number][] = [];
  const sink: JobProgressSink = directSink(async (done, total) => void progress.push([done, total]));
  const keys = async (prefix: string) => (await store.listPage({ prefix, delimiter: '', limit: 1000 })).files.map((f) => f.key);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'upload-job-'));
    s3 = await startEmbeddedS3({ port: 0, directory: dir });
    store = createObjectStore({ endpoint: s3.endpoint, accessKey: 'S3RVER', secretKey: 'S3RVER', bucket: 'library', region: 'us-east-1' });
    await store.ensureBucket();
  });

  afterAll(async () => {
    await s3?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const job = (stagingKey: string, fileName: string, path: string) => ({
    queueId: 'q',
    accountId: 4,
    kind: 'asset-upload',
    payload: { stagingKey, fileName, path, sizeBytes: 0 },
  });

  it('extracts a zip again to the same keys when the job runs twice (a redelivery), and cleanup drops the staged bytes', async () => {
    await store.putObject('staging/uploads/4/a', await zipOf([1, 2, 3].map((i) => ({ name: `d/f${i}.txt`, data: Buffer.from(`file ${i}`) }))));
    const handler = uploadJob({ store, progressEvery: 1 });
    const first = await handler.run(job('staging/uploads/4/a', 'a.zip', 'x'), sink);
    const second = await handler.run(job('staging/uploads/4/a', 'a.zip', 'x'), sink);
    expect(first).toEqual(second);
    expect(await keys('accounts/4/x/')).toEqual(['accounts/4/x/d/f1.txt', 'accounts/4/x/d/f2.txt', 'accounts/4/x/d/f3.txt']);
    expect((await store.getObjectBuffer('accounts/4/x/d/f2.txt')).toString()).toBe('file 2');
    await handler.cleanup?.(job('staging/uploads/4/a', 'a.zip', 'x'));
    expect(await store.statObject('staging/uploads/4/a')).toBeNull();
  });

  it('fails, naming the entry, when an entry inflates past the size it declares, and leaves no part of it', async () => {
    const lying = declareUncompressedSize(await zipOf([{ name: 'big.txt', data: Buffer.alloc(200_000, 7) }]), 10);
    await store.putObject('staging/uploads/4/b', lying);
    const error = await uploadJob({ store })
      .run(job('staging/uploads/4/b', 'b.zip', 'y'), sink)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobFailed);
    expect((error as Error).message).toMatch(/"big\.txt" is corrupt/);
    expect(await keys('accounts/4/y/')).toEqual([]);
  });

  it('fails a file that is not a zip at all with the reason', async () => {
    await store.putObject('staging/uploads/4/c', Buffer.from('not a zip'));
    const error = await uploadJob({ store })
      .run(job('staging/uploads/4/c', 'c.zip', ''), sink)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobFailed);
    expect((error as Error).message).toMatch(/not a readable zip/);
  });
});
