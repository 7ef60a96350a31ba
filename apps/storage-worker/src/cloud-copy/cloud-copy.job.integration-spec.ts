import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { directSink, JobFailed, type JobProgressSink } from '@platform/jobs';
import { createObjectStore, startEmbeddedS3, type EmbeddedS3, type ObjectStore } from '@platform/s3';
import { createSecretBox, developmentKey } from '@platform/secrets';
import { cloudCopyJob } from './cloud-copy.job';

jest.setTimeout(60_000);

describe('cloud copy job (real S3: the library and a customer bucket)', () => {
  let s3: EmbeddedS3;
  let dir: string;
  let library: ObjectStore;
  let customer: ObjectStore;
  const box = createSecretBox(developmentKey('cloud-copy-test'));
  const sink: JobProgressSink = directSink();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cloud-copy-'));
    s3 = await startEmbeddedS3({ port: 0, directory: dir });
    const connection = { endpoint: s3.endpoint, accessKey: 'S3RVER', secretKey: 'S3RVER', region: 'us-east-1' };
    library = createObjectStore({ ...connection, bucket: 'library' });
    customer = createObjectStore({ ...connection, bucket: 'customer' });
    await library.ensureBucket();
    await customer.ensureBucket();
    await customer.putObject('root/small.png', Buffer.from('small'));
    await customer.putObject('root/large.png', Buffer.alloc(64, 1));
    await customer.putObject('root/dir/a.txt', Buffer.from('a'));
    await customer.putObject('root/dir/run.exe', Buffer.from('MZ'));
  });

  afterAll(async () => {
    await s3?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const job = (files: string[], folders: string[], secretKey = 'S3RVER') => ({
    queueId: 'q',
    accountId: 8,
    kind: 'cloud-copy',
    payload: {
      source: {
        endpoint: s3.endpoint,
        region: 'us-east-1',
        bucket: 'customer',
        sealedCredentials: box.seal(JSON.stringify({ accessKey: 'S3RVER', secretKey })).toString('base64'),
      },
      sourcePrefix: 'root',
      files,
      folders,
    },
  });
  const allowlist = () => [new URL(s3.endpoint).host];

  it('copies what it can and reports each failure: too large, refused name, missing', async () => {
    const result = await cloudCopyJob({ store: library, box, allowlist: allowlist(), maxObjectBytes: 32 }).run(
      job(['small.png', 'large.png', 'gone.png'], ['dir']),
      sink,
    );
    expect(result).toMatchObject({ totalItems: 5, totalProcessed: 5 });
    expect(result.message).toMatch(/^Copied 2 of 5 files\. Failed 3: /);
    expect(result.message).toContain('large.png: larger than 32 bytes');
    expect(result.message).toContain('gone.png: not found');
    expect(result.message).toMatch(/dir\/run\.exe: Rule 7/);
    expect((await library.getObjectBuffer('accounts/8/small.png')).toString()).toBe('small');
    expect((await library.getObjectBuffer('accounts/8/dir/a.txt')).toString()).toBe('a');
    expect(await library.statObject('accounts/8/large.png')).toBeNull();
    expect(await library.statObject('accounts/8/dir/run.exe')).toBeNull();
  });

  it('fails the job when nothing could be copied, without the secret in its message', async () => {
    const error = await cloudCopyJob({ store: library, box, allowlist: allowlist() })
      .run(job(['small.png'], [], 'wrong-secret'), sink)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobFailed);
    expect((error as Error).message).toMatch(/Copied none of 1 files/);
    expect((error as Error).message).not.toContain('wrong-secret');
  });

  it('refuses an endpoint off the allowlist before any request', async () => {
    const error = await cloudCopyJob({ store: library, box, allowlist: [] })
      .run(job(['small.png'], []), sink)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobFailed);
    expect((error as Error).message).toMatch(/not allowed/);
  });
});
