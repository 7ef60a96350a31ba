import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'minio';
import { ASSET_ALLOWED_EXTENSIONS } from '@contracts/domain';
import { startEmbeddedS3, type EmbeddedS3 } from '@platform/s3';
import { freePort, startProcess, type RunningProcess } from '@platform/testing';
import { admin, E2eSystem, expectProblem, Http, httpClient, startE2eSystem } from './e2e-system';
import { zipOf } from './zip-fixture';

jest.setTimeout(180_000);

const UPLOAD_MAX_BYTES = 2 * 1024 * 1024;
const LIBRARY_BUCKET = 'library-e2e';
const CUSTOMER_BUCKET = 'customer-e2e';

/** An upload's answer: {queueId}, or a problem. */
type UploadAnswer = { queueId: string; detail?: string; code?: string; errors?: Record<string, unknown>[] };

interface QueueDetail {
  id: string;
  message: string;
  status: string;
  totalItems: number;
  totalProcessed: number;
}
interface LibraryPage {
  files: { cdnUrl: string; date: string; name: string; size: string }[];
  folders: string[];
  nextKey: string;
  path: string;
}

describe('storage over HTTP (gateway -> storage-library -> storage-worker -> S3)', () => {
  let system: E2eSystem;
  let http: Http;
  let s3: EmbeddedS3;
  let s3Dir: string;
  let customer: Client;
  let accountA: number;
  let accountB: number;
  let fullKey: string;
  let keyB: string;
  let viewOnlyKey: string;
  let noQueuesKey: string;
  let storageEnv: Record<string, string>;

  const upload = async (account: number, file: { name: string; data: Buffer } | undefined, path?: string, key = fullKey) => {
    const form = new FormData();
    if (path !== undefined) form.append('path', path);
    if (file) form.append('file', new Blob([file.data]), file.name);
    const response = await fetch(`${system.baseUrl}/v2/accounts/${account}/asset-library`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, body: (text ? JSON.parse(text) : {}) as UploadAnswer };
  };

  const queue = (queueId: string, key = fullKey) => http<QueueDetail>('GET', `/v2/queues/${queueId}/status`, { key });

  async function settle(queueId: string): Promise<QueueDetail> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const result = await queue(queueId);
      expect(result.status).toBe(200);
      if (result.body.status === 'Completed' || result.body.status === 'Failed') return result.body;
      if (Date.now() > deadline) throw new Error(`queue ${queueId} still ${result.body.status}`);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  }

  const list = (account: number, query: Record<string, string> = {}, key = fullKey) =>
    http<LibraryPage>('GET', `/v2/accounts/${account}/asset-library?${new URLSearchParams(query)}`, { key });

  async function uploadAndSettle(account: number, file: { name: string; data: Buffer }, path?: string): Promise<QueueDetail> {
    const queued = await upload(account, file, path);
    expect(queued.status).toBe(200);
    expect(queued.body.queueId).toEqual(expect.any(String));
    return settle(queued.body.queueId);
  }

  async function fetchBytes(url: string): Promise<{ status: number; bytes: Buffer }> {
    const response = await fetch(url);
    return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()) };
  }

  beforeAll(async () => {
    s3Dir = await mkdtemp(join(tmpdir(), 'storage-e2e-'));
    s3 = await startEmbeddedS3({ port: 0, directory: s3Dir });
    const { hostname, port } = new URL(s3.endpoint);
    customer = new Client({
      endPoint: hostname,
      port: Number(port),
      useSSL: false,
      accessKey: 'S3RVER',
      secretKey: 'S3RVER',
      region: 'us-east-1',
      pathStyle: true,
    });
    await customer.makeBucket(CUSTOMER_BUCKET, 'us-east-1');
    storageEnv = {
      S3_ENDPOINT: s3.endpoint,
      S3_BUCKET: LIBRARY_BUCKET,
      OUTBOUND_ALLOWLIST: `${hostname}:${port}`,
      UPLOAD_MAX_BYTES: String(UPLOAD_MAX_BYTES),
      // A job held by a worker that died goes to another one after this long.
      JOB_ACK_WAIT_MS: '3000',
    };
    system = await startE2eSystem('st', { workers: ['storage-worker'], env: storageEnv });
    http = httpClient(system.baseUrl);
    const a = admin(http);
    const orgId = await a.createOrg({ name: 'Storage Retail', isRetailer: true });
    accountA = await a.createAccount(orgId, 'Storage A');
    accountB = await a.createAccount(orgId, 'Storage B');
    fullKey = (await a.createKey({ orgId, accountIds: [accountA], permissions: ['*'] })).apiKey;
    keyB = (await a.createKey({ orgId, accountIds: [accountB], permissions: ['*'] })).apiKey;
    viewOnlyKey = (await a.createKey({ orgId, accountIds: [accountA], permissions: ['AssetLibrary_View', 'CloudStorage_View'] })).apiKey;
    noQueuesKey = (await a.createKey({ orgId, accountIds: [accountA], permissions: ['AssetLibrary_Edit', 'AssetLibrary_View'] })).apiKey;
  });

  afterAll(async () => {
    if (system) expect(await system.stop()).toEqual([0, 0]);
    await s3?.close();
    if (s3Dir) await rm(s3Dir, { recursive: true, force: true });
  });

  describe('upload and the asset library', () => {
    it('places an uploaded file in its folder; the cdnUrl answers the exact bytes', async () => {
      const data = randomBytes(70_000);
      const done = await uploadAndSettle(accountA, { name: 'logo.png', data }, 'banners');
      expect(done).toMatchObject({ status: 'Completed', totalItems: 1, totalProcessed: 1 });

      const page = await list(accountA, { prefix: 'banners' });
      expect(page.status).toBe(200);
      expect(page.body).toMatchObject({ path: 'banners', folders: [], nextKey: '' });
      expect(page.body.files).toEqual([
        { name: 'logo.png', cdnUrl: `${system.baseUrl}/files/accounts/${accountA}/banners/logo.png`, date: expect.any(String), size: '68.36 KB' },
      ]);
      expect(new Date(page.body.files[0].date).toISOString()).toBe(page.body.files[0].date);
      const served = await fetchBytes(page.body.files[0].cdnUrl);
      expect(served.status).toBe(200);
      expect(served.bytes.equals(data)).toBe(true);

      const summary = await http<{ message: string; status: string }>('GET', `/v2/queues/${done.id}`, { key: fullKey });
      expect(summary.status).toBe(200);
      expect(summary.body).toEqual({ message: done.message, status: 'Completed' });
    });

    it('extracts a zip with nested folders (and a nested zip, kept as a file) into the target folder', async () => {
      const hero = randomBytes(5_000);
      const inner = await zipOf([{ name: 'x.txt', data: Buffer.from('inner') }]);
      const archive = await zipOf([
        { name: 'img/', data: Buffer.alloc(0) },
        { name: 'img/hero.jpg', data: hero },
        { name: 'img/icons/a.svg', data: Buffer.from('<svg/>') },
        { name: 'readme.txt', data: Buffer.from('hello') },
        { name: 'more.zip', data: inner },
      ]);
      const done = await uploadAndSettle(accountA, { name: 'pack.zip', data: archive }, 'campaign');
      expect(done).toMatchObject({ status: 'Completed', totalItems: 4, totalProcessed: 4 });

      const top = await list(accountA, { prefix: 'campaign' });
      expect(top.body.folders).toEqual(['img']);
      expect(top.body.files.map((f) => f.name).sort()).toEqual(['more.zip', 'readme.txt']);
      const img = await list(accountA, { prefix: 'campaign/img' });
      expect(img.body.folders).toEqual(['icons']);
      const served = await fetchBytes(img.body.files.find((f) => f.name === 'hero.jpg')?.cdnUrl ?? '');
      expect(served.bytes.equals(hero)).toBe(true);
      const nested = await fetchBytes(top.body.files.find((f) => f.name === 'more.zip')?.cdnUrl ?? '');
      expect(nested.bytes.equals(inner)).toBe(true);
    });

    it('pages a folder with limit and nextKey', async () => {
      for (const name of ['p1.txt', 'p2.txt', 'p3.txt']) await uploadAndSettle(accountA, { name, data: Buffer.from(name) }, 'paged');
      const first = await list(accountA, { prefix: 'paged', limit: '2' });
      expect(first.body.files.map((f) => f.name)).toEqual(['p1.txt', 'p2.txt']);
      expect(first.body.nextKey).not.toBe('');
      const second = await list(accountA, { prefix: 'paged', limit: '2', nextKey: first.body.nextKey });
      expect(second.body.files.map((f) => f.name)).toEqual(['p3.txt']);
      expect(second.body.nextKey).toBe('');
    });

    it.each([
      ['a\u0001b', 1],
      ['caf\u00e9', 2],
      ['a/../b', 3],
      ['./a', 3],
      ['/abs', 4],
      ['a//b', 5],
      ['x'.repeat(513), 6],
    ])('refuses the upload path %j by rule %i, storing nothing', async (path, rule) => {
      const result = await upload(accountA, { name: 'ok.png', data: Buffer.from('x') }, path);
      expect(result.status).toBe(400);
      expect(result.body).toMatchObject({ code: 'VALIDATION_FAILED', detail: expect.stringMatching(new RegExp(`^Rule ${rule}:`)) });
      expect((result.body.errors as { pointer: string }[])[0].pointer).toBe('/path');
    });

    it.each([
      ['a\u0001b', 1],
      ['a\u0085b', 2],
      ['../up', 3],
      ['/abs', 4],
      ['a//b', 5],
    ])('refuses the listing prefix %j by rule %i', async (prefix, rule) => {
      const result = await list(accountA, { prefix });
      expectProblem(result, 400, 'VALIDATION_FAILED');
      expect(result.body.errors?.[0]).toMatchObject({ parameter: 'prefix', detail: expect.stringMatching(new RegExp(`^Rule ${rule}:`)) });
    });

    it('refuses a file extension outside the list, naming it and listing the allowed ones', async () => {
      const result = await upload(accountA, { name: 'tool.exe', data: Buffer.from('MZ') });
      expect(result.status).toBe(400);
      const detail = String(result.body.detail);
      expect(detail).toMatch(/^Rule 7: .*"\.exe"/);
      for (const extension of ASSET_ALLOWED_EXTENSIONS) expect(detail).toContain(extension);
    });

    it('refuses a body without a file, and a JSON body (415)', async () => {
      const missing = await upload(accountA, undefined, 'x');
      expect(missing.status).toBe(400);
      expect(missing.body.errors).toEqual([expect.objectContaining({ pointer: '/file', code: 'REQUIRED' })]);
      const json = await http('POST', `/v2/accounts/${accountA}/asset-library`, { key: fullKey, json: { path: 'x' } });
      expectProblem(json, 415, 'UNSUPPORTED_MEDIA_TYPE');
    });

    it('refuses an upload over the limit with 413 and keeps nothing', async () => {
      const result = await upload(accountA, { name: 'big.mp4', data: randomBytes(UPLOAD_MAX_BYTES + 1) }, 'big');
      expect(result.status).toBe(413);
      expect(result.body.code).toBe('UPLOAD_TOO_LARGE');
      expect((await list(accountA, { prefix: 'big' })).body.files).toEqual([]);
      const staged: string[] = [];
      for await (const item of customer.listObjectsV2(LIBRARY_BUCKET, 'staging/', true)) if (item.name) staged.push(item.name);
      expect(staged).toEqual([]);
    });

    it.each([
      ['a zip-slip entry', [{ name: '../escape.png', data: Buffer.from('x') }], /Rule 3/],
      ['an absolute entry', [{ name: '/etc/evil.png', data: Buffer.from('x') }], /Rule 4/],
      ['an entry with a refused extension', [{ name: 'run.sh', data: Buffer.from('x') }], /Rule 7: .*"\.sh"/],
      ['a symlink', [{ name: 'link.png', data: Buffer.from('/etc/passwd'), mode: 0o120777 }], /symbolic links/],
      ['a zip bomb', [{ name: 'zeros.txt', data: Buffer.alloc(8 * 1024 * 1024) }], /expands \d+ times/],
    ])('fails the queue for %s with the reason and extracts nothing', async (_what, entries, reason) => {
      const folder = `refused-${randomBytes(3).toString('hex')}`;
      const archive = await zipOf([{ name: 'good.png', data: Buffer.from('fine') }, ...entries]);
      const done = await uploadAndSettle(accountA, { name: 'bad.zip', data: archive }, folder);
      expect(done.status).toBe('Failed');
      expect(done.message).toMatch(reason);
      expect((await list(accountA, { prefix: folder })).body).toMatchObject({ files: [], folders: [] });
      const everything: string[] = [];
      for await (const item of customer.listObjectsV2(LIBRARY_BUCKET, '', true)) if (item.name) everything.push(item.name);
      expect(everything.filter((key) => /escape|evil|zeros|link\.png/.test(key))).toEqual([]);
    });

    it('deletes a file and a folder, with the fields each command requires', async () => {
      await uploadAndSettle(accountA, { name: 'gone.png', data: Buffer.from('1') }, 'trash/sub');
      await uploadAndSettle(accountA, { name: 'keep.png', data: Buffer.from('2') }, 'trash');
      const del = (query: Record<string, string>, key = fullKey) =>
        http<{ msg: string }>('DELETE', `/v2/accounts/${accountA}/asset-library?${new URLSearchParams(query)}`, { key });

      expectProblem(await del({ command: 'deleteFile' }), 400, 'VALIDATION_FAILED');
      expectProblem(await del({ command: 'deleteFolder' }), 400, 'VALIDATION_FAILED');
      expectProblem(await del({ command: 'deleteFile', file: 'x.png', path: '../x' }), 400, 'VALIDATION_FAILED');
      expectProblem(await del({ command: 'deleteFile', file: 'keep.png', path: 'trash' }, viewOnlyKey), 403, 'PERMISSION_DENIED');

      const file = await del({ command: 'deleteFile', file: 'keep.png', path: 'trash' });
      expect(file.status).toBe(200);
      expect(file.body.msg).toMatch(/deleted/);
      expectProblem(await del({ command: 'deleteFile', file: 'keep.png', path: 'trash' }), 404, 'ASSET_NOT_FOUND');

      const folder = await del({ command: 'deleteFolder', path: 'trash' });
      expect(folder.status).toBe(200);
      expect((await list(accountA, { prefix: 'trash' })).body).toMatchObject({ files: [], folders: [] });
    });
  });

  describe('cloud storage services', () => {
    const cloud = (account = accountA) => `/accounts/${account}/cloud`;
    const copied = { 'a.png': randomBytes(3_000), 'dir/b.jpg': randomBytes(4_000), 'dir/deep/c.txt': Buffer.from('deep'), 'bad.exe': Buffer.from('MZ') };
    let serviceId: number;

    beforeAll(async () => {
      for (const [name, data] of Object.entries(copied)) await customer.putObject(CUSTOMER_BUCKET, `root/${name}`, data);
    });

    const createBody = (overrides: Record<string, string> = {}) => ({
      name: 'Brand bucket',
      serviceType: 'objstore',
      rootDir: `${CUSTOMER_BUCKET}/root`,
      accessKey: 'S3RVER',
      secreteKey: 'S3RVER',
      endpoint: s3.endpoint,
      ...overrides,
    });

    it('refuses wrong credentials, a missing bucket and an endpoint off the allowlist, storing nothing', async () => {
      const wrongSecret = await http('POST', cloud(), { key: fullKey, json: createBody({ secreteKey: 'not-the-secret' }) });
      expectProblem(wrongSecret, 400, 'CLOUD_CREDENTIALS_REJECTED');
      expect(wrongSecret.text).not.toContain('not-the-secret');
      expectProblem(await http('POST', cloud(), { key: fullKey, json: createBody({ rootDir: 'no-such-bucket/x' }) }), 400, 'CLOUD_BUCKET_NOT_FOUND');
      expectProblem(await http('POST', cloud(), { key: fullKey, json: createBody({ endpoint: 'http://127.0.0.1:9' }) }), 400, 'CLOUD_ENDPOINT_NOT_ALLOWED');
      expectProblem(await http('POST', cloud(), { key: fullKey, json: createBody({ rootDir: `${CUSTOMER_BUCKET}/a//b` }) }), 400, 'VALIDATION_FAILED');
      expect((await http<{ services: unknown[] }>('GET', cloud(), { key: fullKey })).body.services).toEqual([]);
    });

    it('creates a service with a full s3:// rootDir and never shows the secret', async () => {
      const created = await http<{ id: number; name: string; serviceType: string; rootDir: string }>('POST', cloud(), { key: fullKey, json: createBody() });
      expect(created.status).toBe(200);
      expect(created.body).toEqual({ id: expect.any(Number), name: 'Brand bucket', serviceType: 'objstore', rootDir: `s3://${CUSTOMER_BUCKET}/root` });
      serviceId = created.body.id;
      const listed = await http<{ services: unknown[] }>('GET', cloud(), { key: fullKey });
      expect(listed.body.services).toEqual([created.body]);
      expect(listed.text).not.toMatch(/S3RVER|secret/i);
    });

    it('renames with PUT (204)', async () => {
      const renamed = await http('PUT', `${cloud()}/${serviceId}`, { key: fullKey, json: { name: 'Renamed bucket' } });
      expect(renamed.status).toBe(204);
      expect((await http<{ services: { name: string }[] }>('GET', cloud(), { key: fullKey })).body.services[0].name).toBe('Renamed bucket');
    });

    it('lists files and folders under the root and a sub-path', async () => {
      const root = await http<{ files: { name: string; size: number; date: string }[]; folders: string[]; url: string; path: string }>(
        'GET',
        `${cloud()}/${serviceId}`,
        {
          key: fullKey,
        },
      );
      expect(root.status).toBe(200);
      expect(root.body.folders).toEqual(['dir']);
      expect(root.body.files.map((f) => [f.name, f.size])).toEqual([
        ['a.png', 3_000],
        ['bad.exe', 2],
      ]);
      expect(root.body).toMatchObject({ url: `s3://${CUSTOMER_BUCKET}/root`, path: '' });
      const sub = await http<{ files: { name: string }[]; folders: string[]; url: string; path: string }>('GET', `${cloud()}/${serviceId}?path=dir`, {
        key: fullKey,
      });
      expect(sub.body).toMatchObject({ folders: ['deep'], url: `s3://${CUSTOMER_BUCKET}/root/dir`, path: 'dir' });
      expect(sub.body.files.map((f) => f.name)).toEqual(['b.jpg']);
      expectProblem(await http('GET', `${cloud()}/${serviceId}?path=..%2Fx`, { key: fullKey }), 400, 'VALIDATION_FAILED');
    });

    it('copies files and folders (recursively) into the library; a failing file is reported and the rest go on', async () => {
      const queued = await http<{ queueId: string }>('POST', `${cloud()}/${serviceId}`, {
        key: fullKey,
        json: { path: '', files: ['a.png', 'missing.png'], folders: ['dir'] },
      });
      expect(queued.status).toBe(200);
      const done = await settle(queued.body.queueId);
      expect(done).toMatchObject({ status: 'Completed', totalItems: 4, totalProcessed: 4 });
      expect(done.message).toMatch(/Copied 3 of 4 files\. Failed 1: missing\.png: not found/);
      for (const name of ['a.png', 'dir/b.jpg', 'dir/deep/c.txt']) {
        const served = await fetchBytes(`${system.baseUrl}/files/accounts/${accountA}/${name}`);
        expect(served.bytes.equals(copied[name as keyof typeof copied])).toBe(true);
      }
      const refused = await http('POST', `${cloud()}/${serviceId}`, { key: fullKey, json: { path: '', files: ['bad.exe'], folders: [] } });
      expectProblem(refused, 400, 'VALIDATION_FAILED');
      expect(refused.body.errors?.[0]).toMatchObject({ pointer: '/files/0', detail: expect.stringMatching(/^Rule 7/) });
    });

    it("answers 404 for another account's service and queue, and 403 without the permission", async () => {
      const queued = await http<{ queueId: string }>('POST', `${cloud()}/${serviceId}`, { key: fullKey, json: { path: 'dir', files: ['b.jpg'], folders: [] } });
      await settle(queued.body.queueId);
      expectProblem(await queue(queued.body.queueId, keyB), 404, 'QUEUE_NOT_FOUND');
      expectProblem(await http('GET', `/v2/queues/${queued.body.queueId}`, { key: keyB }), 404, 'QUEUE_NOT_FOUND');
      expectProblem(await http('GET', `${cloud(accountB)}/${serviceId}`, { key: keyB }), 404, 'CLOUD_SERVICE_NOT_FOUND');
      expectProblem(await http('DELETE', `${cloud(accountB)}/${serviceId}`, { key: keyB }), 404, 'CLOUD_SERVICE_NOT_FOUND');
      expectProblem(await http('GET', cloud(), { key: keyB }), 404, 'ACCOUNT_NOT_FOUND');
      expectProblem(await list(accountA, {}, keyB), 404, 'ACCOUNT_NOT_FOUND');
      expect((await upload(accountA, { name: 'x.png', data: Buffer.from('x') }, '', keyB)).status).toBe(404);

      const noQueues = await queue(queued.body.queueId, noQueuesKey);
      expectProblem(noQueues, 403, 'PERMISSION_DENIED');
      expect(noQueues.body.requiredPermission).toBe('Queues_View');
      expectProblem(await http('POST', cloud(), { key: viewOnlyKey, json: createBody() }), 403, 'PERMISSION_DENIED');
      expect((await upload(accountA, { name: 'x.png', data: Buffer.from('x') }, '', viewOnlyKey)).status).toBe(403);
      expect((await http('GET', cloud(), { key: viewOnlyKey })).status).toBe(200);
    });

    it('deletes the service (204), then it is gone', async () => {
      expect((await http('DELETE', `${cloud()}/${serviceId}`, { key: fullKey })).status).toBe(204);
      expectProblem(await http('DELETE', `${cloud()}/${serviceId}`, { key: fullKey }), 404, 'CLOUD_SERVICE_NOT_FOUND');
    });
  });

  describe('reliability', () => {
    const startWorker = async (name: string): Promise<RunningProcess> =>
      startProcess({
        name,
        entry: 'apps/storage-worker/src/main.ts',
        env: {
          ...storageEnv,
          MYSQL_SCHEMA_PREFIX: system.prefix,
          NATS_PREFIX: system.prefix,
          NODE_ENV: 'test',
          LOG_LEVEL: 'info',
          HEALTH_PORT: String(await freePort()),
        },
        ready: /storage-worker ready/,
      });

    /** Waits until the job has made progress but not finished, then kills its worker without warning. */
    async function killMidway(worker: RunningProcess, queueId: string, total: number): Promise<void> {
      const deadline = Date.now() + 60_000;
      let seen: QueueDetail;
      do {
        seen = (await queue(queueId)).body;
        if (Date.now() > deadline) throw new Error(`no progress: ${JSON.stringify(seen)}`);
      } while (!(seen.status === 'Processing' && seen.totalProcessed > 0));
      expect(seen.totalProcessed).toBeLessThan(total);
      worker.child.kill('SIGKILL');
      await new Promise((resolve) => worker.child.once('exit', resolve));
    }

    async function libraryNames(prefix: string): Promise<string[]> {
      const names: string[] = [];
      let nextKey = '';
      do {
        const page = await list(accountA, { prefix, limit: '100', ...(nextKey ? { nextKey } : {}) });
        names.push(...page.body.files.map((f) => f.name));
        nextKey = page.body.nextKey;
      } while (nextKey);
      return names;
    }

    it('finishes an extraction after its worker is killed mid-way, each file once and whole', async () => {
      // Only the workers of this test take jobs now.
      const original = system.otherBackends.find((proc) => proc.name === 'storage-worker');
      expect(await original?.stop()).toBe(0);
      const first = await startWorker('storage-worker-killed');
      let second: RunningProcess | undefined;
      try {
        const files = Array.from({ length: 600 }, (_, i) => ({ name: `img-${String(i).padStart(4, '0')}.png`, data: randomBytes(1_500 + i) }));
        const queued = await upload(accountA, { name: 'many.zip', data: await zipOf(files) }, 'restart');
        expect(queued.status).toBe(200);
        const { queueId } = queued.body;

        await killMidway(first, queueId, files.length);

        second = await startWorker('storage-worker-restarted');
        const done = await settle(queueId);
        expect(done).toMatchObject({ status: 'Completed', totalItems: files.length, totalProcessed: files.length });

        expect(await libraryNames('restart')).toEqual(files.map((f) => f.name));
        for (const file of [files[0], files[299], files[599]]) {
          const served = await fetchBytes(`${system.baseUrl}/files/accounts/${accountA}/restart/${file.name}`);
          expect(served.bytes.equals(file.data)).toBe(true);
        }
      } finally {
        if (first.child.exitCode === null && first.child.signalCode === null) first.child.kill('SIGKILL');
        expect(await second?.stop()).toBe(0);
      }
    });

    it('finishes a cloud copy after its worker is killed mid-way, each object once and whole', async () => {
      const objects = Array.from({ length: 300 }, (_, i) => ({ name: `obj-${String(i).padStart(4, '0')}.jpg`, data: randomBytes(2_000 + i) }));
      await Promise.all(objects.map((o) => customer.putObject(CUSTOMER_BUCKET, `bulk-root/bulk/${o.name}`, o.data)));
      const created = await http<{ id: number }>('POST', `/accounts/${accountA}/cloud`, {
        key: fullKey,
        json: {
          name: 'Bulk',
          serviceType: 'objstore',
          rootDir: `${CUSTOMER_BUCKET}/bulk-root`,
          accessKey: 'S3RVER',
          secreteKey: 'S3RVER',
          endpoint: s3.endpoint,
        },
      });
      expect(created.status).toBe(200);
      const first = await startWorker('storage-worker-killed-copy');
      let second: RunningProcess | undefined;
      try {
        const queued = await http<{ queueId: string }>('POST', `/accounts/${accountA}/cloud/${created.body.id}`, {
          key: fullKey,
          json: { files: [], folders: ['bulk'] },
        });
        expect(queued.status).toBe(200);
        await killMidway(first, queued.body.queueId, objects.length);
        second = await startWorker('storage-worker-restarted-copy');
        const done = await settle(queued.body.queueId);
        expect(done).toMatchObject({
          status: 'Completed',
          totalItems: objects.length,
          totalProcessed: objects.length,
          message: `Copied ${objects.length} of ${objects.length} files.`,
        });
        expect(await libraryNames('bulk')).toEqual(objects.map((o) => o.name));
        for (const object of [objects[0], objects[150], objects[299]]) {
          const served = await fetchBytes(`${system.baseUrl}/files/accounts/${accountA}/bulk/${object.name}`);
          expect(served.bytes.equals(object.data)).toBe(true);
        }
      } finally {
        if (first.child.exitCode === null && first.child.signalCode === null) first.child.kill('SIGKILL');
        expect(await second?.stop()).toBe(0);
      }
    });
  });
});
