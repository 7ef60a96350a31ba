import { Client } from 'minio';
import { JobStatus, jobRequestSubject, type JobProgress } from '@platform/jobs';
import { naming } from '@platform/nats';
import { createEventOutbox } from '@platform/service';
import { createObjectStore, type ObjectStore } from '@platform/s3';
import { AssetLibraryService, FIND_FILES_CONCURRENCY, FIND_FILES_MAX_PATHS, READ_FILE_MAX_CHUNK } from './asset-library/asset-library.service';
import { QueueRepository } from './queues/queue.repository';
import { QueueService } from './queues/queue.service';
import { openStorageLibraryTestBed, rejectionOf, type StorageLibraryTestBed } from './storage-library.test-support';

jest.setTimeout(60_000);

describe('storage-library services (real MariaDB and S3)', () => {
  let bed: StorageLibraryTestBed;
  let customer: Client;

  beforeAll(async () => {
    bed = await openStorageLibraryTestBed('sl');
    const { hostname, port } = new URL(bed.s3.endpoint);
    customer = new Client({
      endPoint: hostname,
      port: Number(port),
      useSSL: false,
      accessKey: 'S3RVER',
      secretKey: 'S3RVER',
      region: 'us-east-1',
      pathStyle: true,
    });
    await customer.makeBucket('customer', 'us-east-1');
    await customer.putObject('customer', 'root/a.png', Buffer.from('a'));
  });

  afterAll(async () => {
    await bed?.close();
  });

  const progress = (queueId: string, sequence: number, overrides: Partial<JobProgress> = {}): JobProgress => ({
    queueId,
    accountId: 1,
    kind: 'asset-upload',
    status: JobStatus.JOB_STATUS_PROCESSING,
    totalItems: 3,
    totalProcessed: 1,
    message: 'working',
    sequence,
    occurredAt: new Date(1_800_000_000_000 + sequence).toISOString(),
    ...overrides,
  });

  describe('queues', () => {
    it('writes the Queued row and the job request in one transaction', async () => {
      const queueId = await bed.queues.enqueue('asset-upload', 1, { stagingKey: 'k' });
      expect(await bed.queues.get([1], queueId)).toMatchObject({ queueId, status: 'Queued', kind: 'asset-upload', totalItems: 0 });
      const rows = await bed.db.knex('outbox').select('subject', 'msg_id', 'payload');
      const row = rows.find((r: { msg_id: string }) => r.msg_id === `job:${queueId}`);
      expect(row.subject).toMatch(new RegExp(`${jobRequestSubject('asset-upload').replace(/\./g, '\\.')}$`));
      expect(JSON.parse(String(row.payload))).toEqual({ queueId, accountId: 1, kind: 'asset-upload', payload: { stagingKey: 'k' } });
    });

    it('folds progress to one terminal state, ignoring stale and later events', async () => {
      const queueId = await bed.queues.enqueue('asset-upload', 1, {});
      await bed.queues.apply(progress(queueId, 5));
      await bed.queues.apply(progress(queueId, 3, { totalProcessed: 0, message: 'stale' }));
      expect(await bed.queues.get([1], queueId)).toMatchObject({ status: 'Processing', totalProcessed: 1, message: 'working' });
      await bed.queues.apply(progress(queueId, 6, { status: JobStatus.JOB_STATUS_COMPLETED, totalProcessed: 3, message: 'done' }));
      await bed.queues.apply(progress(queueId, 7, { status: JobStatus.JOB_STATUS_FAILED, message: 'replayed' }));
      expect(await bed.queues.get([1], queueId)).toMatchObject({ status: 'Completed', totalItems: 3, totalProcessed: 3, message: 'done' });
    });

    describe('per-account cap on concurrent jobs', () => {
      const capped = () => new QueueService(bed.db.knex, createEventOutbox(naming('CAPTEST')), new QueueRepository(bed.db), undefined, { 'cloud-copy': 2 });
      const finish = (queueId: string, accountId: number) =>
        bed.queues.apply(progress(queueId, 1, { accountId, kind: 'cloud-copy', status: JobStatus.JOB_STATUS_COMPLETED, message: 'done' }));

      it('refuses a job past the cap with 429, queuing nothing, and takes one again once a job has ended', async () => {
        const queues = capped();
        const [first] = [await queues.enqueue('cloud-copy', 31, {}), await queues.enqueue('cloud-copy', 31, {})];
        expect(await rejectionOf(queues.enqueue('cloud-copy', 31, {}))).toMatchObject({ status: 429, code: 'JOB_LIMIT_REACHED' });
        expect(await bed.db.knex('queues').where({ account_id: 31 }).count({ n: '*' })).toEqual([{ n: 2 }]);
        // Another account, and another kind of the same account, have room of their own.
        await queues.enqueue('cloud-copy', 32, {});
        await queues.enqueue('asset-upload', 31, {});
        await finish(first, 31);
        await expect(queues.enqueue('cloud-copy', 31, {})).resolves.toEqual(expect.any(String));
      });

      it('admits no more than the cap when requests arrive at once', async () => {
        const queues = capped();
        const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => queues.enqueue('cloud-copy', 33, {})));
        expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(2);
        expect(outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason.code)).toEqual(
          Array(6).fill('JOB_LIMIT_REACHED'),
        );
      });
    });

    it("answers not found for another account's queue and for an unknown id", async () => {
      const queueId = await bed.queues.enqueue('cloud-copy', 1, {});
      expect(await rejectionOf(bed.queues.get([2], queueId))).toMatchObject({ status: 404, code: 'QUEUE_NOT_FOUND' });
      expect(await rejectionOf(bed.queues.get([1], 'nope'))).toMatchObject({ status: 404, code: 'QUEUE_NOT_FOUND' });
    });
  });

  describe('cloud services', () => {
    const input = (overrides: Record<string, string> = {}) => ({
      name: 'Bucket',
      serviceType: 'objstore',
      rootDir: 'customer/root',
      accessKey: 'S3RVER',
      secretKey: 'S3RVER',
      endpoint: bed.s3.endpoint,
      region: '',
      ...overrides,
    });

    it('checks the credentials against the bucket and seals them at rest', async () => {
      const created = await bed.cloud.create(10, input());
      expect(created).toMatchObject({ bucket: 'customer', prefix: 'root', region: 'us-east-1' });
      const [row] = await bed.db.knex('cloud_services').where({ id: created.id });
      expect(Buffer.from(row.sealed_credentials).toString('latin1')).not.toContain('S3RVER');
      expect((await bed.cloud.listFiles(10, created.id, '')).files.map((f) => f.name)).toEqual(['a.png']);
    });

    it.each([
      [{ secretKey: 'wrong' }, 'CLOUD_CREDENTIALS_REJECTED'],
      [{ rootDir: 'missing-bucket/x' }, 'CLOUD_BUCKET_NOT_FOUND'],
      [{ endpoint: 'http://127.0.0.1:1' }, 'CLOUD_ENDPOINT_NOT_ALLOWED'],
      [{ endpoint: 'http://169.254.169.254' }, 'CLOUD_ENDPOINT_NOT_ALLOWED'],
      [{ rootDir: 'customer/../x' }, 'VALIDATION_FAILED'],
      [{ serviceType: 'ftp' }, 'VALIDATION_FAILED'],
    ])('refuses %j with %s and stores nothing', async (overrides, code) => {
      const before = (await bed.cloud.list(11)).length;
      expect(await rejectionOf(bed.cloud.create(11, input(overrides)))).toMatchObject({ code });
      expect(await bed.cloud.list(11)).toHaveLength(before);
    });

    it("keeps another account's service out of reach", async () => {
      const created = await bed.cloud.create(12, input());
      expect(await rejectionOf(bed.cloud.rename(13, created.id, 'x'))).toMatchObject({ status: 404, code: 'CLOUD_SERVICE_NOT_FOUND' });
      expect(await rejectionOf(bed.cloud.copy(13, created.id, { path: '', files: ['a.png'], folders: [] }))).toMatchObject({ status: 404 });
      expect(await rejectionOf(bed.cloud.delete(13, created.id))).toMatchObject({ status: 404 });
    });
  });

  describe('asset library', () => {
    it('lists one folder level of the account only, with nextKey relative to the library', async () => {
      await bed.store.putObject('accounts/20/f/one.png', Buffer.from('1'));
      await bed.store.putObject('accounts/20/f/two.png', Buffer.from('22'));
      await bed.store.putObject('accounts/20/f/sub/three.png', Buffer.from('333'));
      await bed.store.putObject('accounts/21/f/other.png', Buffer.from('x'));
      const first = await bed.assets.list(20, { prefix: 'f', limit: 2, nextKey: '' });
      expect(first.files.map((f) => [f.name, f.path, f.sizeBytes])).toEqual([['one.png', 'f/one.png', 1]]);
      expect(first.folders).toEqual(['sub']);
      const second = await bed.assets.list(20, { prefix: 'f', limit: 2, nextKey: first.nextKey });
      expect(second.files.map((f) => f.name)).toEqual(['two.png']);
      expect(second.nextKey).toBe('');
    });

    describe('reading a file in chunks (peer ReadLibraryFile)', () => {
      const body = Buffer.from(Array.from({ length: 2_500 }, (_, i) => i % 251));
      beforeAll(async () => {
        await bed.store.putObject('accounts/40/feeds/products.csv', body);
        await bed.store.putObject('accounts/40/feeds/empty.csv', Buffer.alloc(0));
      });

      it('answers the bytes from the offset, with the size and ETag on every chunk, and nothing past the end', async () => {
        const first = await bed.assets.readFile(40, 'feeds/products.csv', 0, 1_000);
        expect(first).toMatchObject({ found: true, sizeBytes: 2_500, etag: expect.any(String) });
        expect(first.data.equals(body.subarray(0, 1_000))).toBe(true);
        const last = await bed.assets.readFile(40, 'feeds/products.csv', 2_000, 1_000);
        expect(last.data.equals(body.subarray(2_000))).toBe(true);
        expect(last.etag).toBe(first.etag);
        expect((await bed.assets.readFile(40, 'feeds/products.csv', 2_500, 1_000)).data).toHaveLength(0);
        expect(await bed.assets.readFile(40, 'feeds/empty.csv', 0, 1_000)).toMatchObject({ found: true, sizeBytes: 0, data: Buffer.alloc(0) });
      });

      it("answers found: false for a missing file and for another account's", async () => {
        expect(await bed.assets.readFile(40, 'feeds/missing.csv', 0, 10)).toMatchObject({ found: false, sizeBytes: 0 });
        expect(await bed.assets.readFile(41, 'feeds/products.csv', 0, 10)).toMatchObject({ found: false });
      });

      it('refuses a path breaking the library rules and a chunk out of bounds, naming each', async () => {
        expect(await rejectionOf(bed.assets.readFile(40, '../41/feeds/products.csv', 0, 10))).toMatchObject({
          status: 400,
          errors: [expect.objectContaining({ pointer: '/path', code: 'PATH_TRAVERSAL' })],
        });
        expect(await rejectionOf(bed.assets.readFile(40, 'feeds/products.csv', -1, READ_FILE_MAX_CHUNK + 1))).toMatchObject({
          status: 400,
          errors: [
            expect.objectContaining({ pointer: '/offset', code: 'OUT_OF_RANGE' }),
            expect.objectContaining({ pointer: '/length', code: 'OUT_OF_RANGE' }),
          ],
        });
      });
    });

    describe('finding files (peer FindLibraryFiles)', () => {
      beforeAll(async () => {
        await bed.store.putObject('accounts/30/motion/intro.mp4', Buffer.from('1234'));
        await bed.store.putObject('accounts/30/logo.png', Buffer.from('12'));
        await bed.store.putObject('accounts/30/folder.png/inside.png', Buffer.from('x'));
        await bed.store.putObject('accounts/31/motion/outro.webm', Buffer.from('x'));
      });

      it('answers the paths that exist as files of the account, each once in the order asked, with their size', async () => {
        const found = await bed.assets.findFiles(30, ['logo.png', 'motion/missing.png', 'motion/intro.mp4', 'logo.png']);
        expect(found).toEqual([
          { path: 'logo.png', sizeBytes: 2 },
          { path: 'motion/intro.mp4', sizeBytes: 4 },
        ]);
        expect(await bed.assets.findFiles(30, [])).toEqual([]);
      });

      it("leaves out another account's file and a folder named like a file", async () => {
        expect(await bed.assets.findFiles(30, ['motion/outro.webm', 'folder.png'])).toEqual([]);
        expect(await bed.assets.findFiles(31, ['motion/outro.webm', 'logo.png'])).toEqual([{ path: 'motion/outro.webm', sizeBytes: 1 }]);
      });

      it('refuses a path breaking the library rules, naming it, and more than the bound', async () => {
        const error = await rejectionOf(bed.assets.findFiles(30, ['logo.png', '../31/motion/outro.webm', 'motion/x.exe']));
        expect(error).toMatchObject({
          status: 400,
          errors: [
            expect.objectContaining({ pointer: '/paths/1', code: 'PATH_TRAVERSAL' }),
            expect.objectContaining({ pointer: '/paths/2', code: 'EXTENSION_NOT_ALLOWED' }),
          ],
        });
        const tooMany = Array.from({ length: FIND_FILES_MAX_PATHS + 1 }, (_, i) => `f${i}.png`);
        expect(await rejectionOf(bed.assets.findFiles(30, tooMany))).toMatchObject({
          status: 400,
          errors: [expect.objectContaining({ pointer: '/paths', code: 'TOO_MANY_ITEMS' })],
        });
        expect(await bed.assets.findFiles(30, tooMany.slice(1))).toEqual([]);
      });

      it(`keeps at most ${FIND_FILES_CONCURRENCY} stats in flight on the object store`, async () => {
        let inFlight = 0;
        let most = 0;
        const counting: ObjectStore = Object.assign(Object.create(bed.store) as ObjectStore, {
          statObject: async (key: string) => {
            most = Math.max(most, ++inFlight);
            try {
              return await bed.store.statObject(key);
            } finally {
              inFlight--;
            }
          },
        });
        const assets = new AssetLibraryService(counting, bed.queues, bed.db.knex, createEventOutbox(naming('')));
        const paths = [...Array.from({ length: 200 }, (_, i) => `none/${i}.png`), 'logo.png'];
        expect(await assets.findFiles(30, paths)).toEqual([{ path: 'logo.png', sizeBytes: 2 }]);
        expect(most).toBe(FIND_FILES_CONCURRENCY);
      });

      it('answers 503 when the object store is down', async () => {
        const down = createObjectStore({ endpoint: 'http://127.0.0.1:1', accessKey: 'S3RVER', secretKey: 'S3RVER', bucket: 'library', region: 'us-east-1' });
        expect(
          await rejectionOf(new AssetLibraryService(down, bed.queues, bed.db.knex, createEventOutbox(naming(''))).findFiles(30, ['logo.png'])),
        ).toMatchObject({
          status: 503,
          code: 'OBJECT_STORE_UNAVAILABLE',
        });
      });
    });

    it('refuses a staged upload of another account and a file name by its rule', async () => {
      expect(await rejectionOf(bed.assets.startUpload(20, { stagingKey: 'staging/uploads/21/x', path: '', fileName: 'a.png', sizeBytes: 1 }))).toMatchObject({
        code: 'INVALID_STAGING_KEY',
      });
      expect(await rejectionOf(bed.assets.startUpload(20, { stagingKey: 'staging/uploads/20/x', path: '', fileName: 'a.bat', sizeBytes: 1 }))).toMatchObject({
        status: 400,
        detail: expect.stringMatching(/^Rule 7/),
      });
    });
  });
});
