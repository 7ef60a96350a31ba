import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { startEmbeddedS3, type EmbeddedS3 } from './embedded-s3-server';
import { createMinioClient } from './minio-client.factory';
import { MIN_PART_SIZE } from './multipart-upload';
import { accountKey } from './object-key';
import { createObjectStore, type ListPage, type ListPageRequest, type ObjectStore } from './object-store';
import { InvalidObjectKeyError, ObjectNotFoundError, ObjectSizeMismatchError, ObjectStoreUnavailableError } from './object-store.errors';

jest.setTimeout(60_000);

const credentials = { accessKey: 'it-access-key', secretKey: 'it-secret-key' };

let directory: string;
let server: EmbeddedS3;
let store: ObjectStore;
// minio retries a 500 once, which would hide a server fault that happened to succeed the second time.
const serverErrors: Error[] = [];

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'platform-s3-it-'));
  server = await startEmbeddedS3({ port: 0, directory, ...credentials, onError: (error) => serverErrors.push(error) });
  store = createObjectStore({
    endpoint: server.endpoint,
    ...credentials,
    bucket: `it-${randomUUID().slice(0, 8)}`,
    // The smallest part S3 allows, so a ~5 MB body already goes up as a multipart upload.
    partSizeBytes: MIN_PART_SIZE,
  });
  await store.ensureBucket();
});

afterEach(() => {
  expect(serverErrors.splice(0)).toEqual([]);
});

afterAll(async () => {
  await server?.close();
  if (directory) await rm(directory, { recursive: true, force: true });
});

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A stream of unknown length, produced piece by piece like an upload coming off a socket. */
function trickle(bytes: Buffer, pieceSize = 64 * 1024): Readable {
  return Readable.from(
    (function* () {
      for (let offset = 0; offset < bytes.length; offset += pieceSize) yield bytes.subarray(offset, offset + pieceSize);
    })(),
  );
}

async function allPages(request: Omit<ListPageRequest, 'startAfter'>): Promise<ListPage[]> {
  const pages: ListPage[] = [];
  let startAfter: string | undefined;
  do {
    const page = await store.listPage({ ...request, startAfter });
    pages.push(page);
    startAfter = page.nextKey ?? undefined;
  } while (startAfter !== undefined && pages.length < 100);
  return pages;
}

describe('ObjectStore against the embedded S3 server', () => {
  it('creates the bucket idempotently, even when replicas race, and answers ping', async () => {
    await Promise.all([store.ensureBucket(), store.ensureBucket()]);
    await expect(store.ping()).resolves.toBeUndefined();
  });

  it('round-trips bytes with their content type and reports them in stat', async () => {
    const key = accountKey(1, 'library', 'logo.png');
    const body = randomBytes(1234);
    await expect(store.putObject(key, body, { contentType: 'image/png' })).resolves.toEqual({ size: 1234 });

    expect((await store.getObjectBuffer(key)).equals(body)).toBe(true);
    const stat = await store.statObject(key);
    expect(stat).toMatchObject({ size: 1234, contentType: 'image/png', etag: createHash('md5').update(body).digest('hex') });
    expect(stat?.lastModified).toBeInstanceOf(Date);
  });

  it('streams a ~5 MB body of unknown length up as a multipart upload and back down as a stream', async () => {
    const key = accountKey(1, 'uploads', 'video.bin');
    const body = randomBytes(5_500_000);
    await expect(store.putObject(key, trickle(body), { contentType: 'application/octet-stream' })).resolves.toEqual({ size: body.length });

    const download = await store.getObject(key);
    expect(download).toBeInstanceOf(Readable);
    const received: Buffer[] = [];
    for await (const chunk of download) received.push(chunk as Buffer);
    expect(received.length).toBeGreaterThan(1);
    expect(sha256(Buffer.concat(received))).toBe(sha256(body));
    expect((await store.statObject(key))?.size).toBe(body.length);
  });

  it('stores an empty body', async () => {
    const key = accountKey(1, 'empty.txt');
    await store.putObject(key, trickle(Buffer.alloc(0)), { contentType: 'text/plain' });
    expect(await store.getObjectBuffer(key)).toEqual(Buffer.alloc(0));
  });

  it('refuses a stream that is shorter than its declared size and stores nothing', async () => {
    const key = accountKey(1, 'truncated.bin');
    await expect(store.putObject(key, trickle(randomBytes(1000)), { size: 2000 })).rejects.toBeInstanceOf(ObjectSizeMismatchError);
    const twoParts = trickle(randomBytes(MIN_PART_SIZE + 10));
    await expect(store.putObject(key, twoParts, { size: MIN_PART_SIZE + 11 })).rejects.toThrow(/expected 5242891 bytes/);
    expect(await store.statObject(key)).toBeNull();
    // The multipart attempt was aborted: no parts left behind on the server's disk.
    await expect(readdir(join(directory, store.bucket, '._S3rver_uploads'))).resolves.toEqual([]);
  });

  it('answers null for stat and ObjectNotFoundError for get of a missing key', async () => {
    expect(await store.statObject(accountKey(1, 'nope.png'))).toBeNull();
    await expect(store.getObject(accountKey(1, 'nope.png'))).rejects.toBeInstanceOf(ObjectNotFoundError);
  });

  it('pages through files and folders by key, each entry exactly once, in S3 key order', async () => {
    const base = accountKey(2, 'library/');
    // "a", "a-1.png", "a.png" and folder "a/" are the names s3rver's own listing put out of order.
    const names = ['a', 'a-1.png', 'a.png', 'a/inner.png', 'b/1.png', 'b/2.png', 'b/deep/3.png', 'c.png', 'd/1.png', 'e.png', 'f/1.png', 'f/2.png'];
    await Promise.all(names.map((name) => store.putObject(base + name, Buffer.from(name), { contentType: 'text/plain' })));
    const expectedOrder = ['a', 'a-1.png', 'a.png', 'a/', 'b/', 'c.png', 'd/', 'e.png', 'f/'].map((name) => base + name);

    for (const limit of [1, 2, 4, 9, 50]) {
      const pages = await allPages({ prefix: base, limit });
      const seen = pages.flatMap((page) => [...page.files.map((file) => file.key), ...page.folders]).sort();
      expect(seen).toEqual([...expectedOrder].sort());
      expect(pages.every((page) => page.files.length + page.folders.length <= limit)).toBe(true);
      expect(pages.slice(0, -1).every((page) => page.files.length + page.folders.length === limit)).toBe(true);
      // Files and folders interleave in key order across page boundaries.
      const lastOfEachFullPage = expectedOrder.filter((_, index) => (index + 1) % limit === 0 && index + 1 < expectedOrder.length);
      expect(pages.map((page) => page.nextKey).filter((key) => key !== null)).toEqual(lastOfEachFullPage);
    }

    const [first] = await allPages({ prefix: base, limit: 50 });
    expect(first.files.find((file) => file.key === `${base}c.png`)).toMatchObject({ size: 5 });
    expect(first.files[0].lastModified).toBeInstanceOf(Date);
    expect(first.nextKey).toBeNull();
  });

  it('lists recursively without a delimiter, and within a folder', async () => {
    const base = accountKey(2, 'library/');
    const recursive = (await allPages({ prefix: `${base}b/`, delimiter: '', limit: 2 })).flatMap((page) => page.files.map((file) => file.key));
    expect(recursive).toEqual([`${base}b/1.png`, `${base}b/2.png`, `${base}b/deep/3.png`]);
    const folder = await store.listPage({ prefix: `${base}b/`, limit: 10 });
    expect(folder).toMatchObject({ files: [{ key: `${base}b/1.png` }, { key: `${base}b/2.png` }], folders: [`${base}b/deep/`], nextKey: null });
  });

  it('keeps keys with "+", "%", spaces and non-ASCII intact through listing and download', async () => {
    const base = accountKey(3, 'odd/');
    const names = ['1+1=2.txt', '100%.txt', 'with space.txt', 'ünï 名前.txt', 'amp&lt.txt'];
    for (const name of names) await store.putObject(base + name, Buffer.from(name));
    const listed = (await store.listPage({ prefix: base, limit: 10 })).files.map((file) => file.key);
    expect(listed.sort()).toEqual(names.map((name) => base + name).sort());
    for (const name of names) expect((await store.getObjectBuffer(base + name)).toString()).toBe(name);
  });

  it('deletes a prefix, reporting the count and leaving neighbours alone', async () => {
    const doomed = accountKey(4);
    const neighbour = accountKey(40, 'keep.txt');
    await store.putObject(neighbour, Buffer.from('keep'));
    const keys = Array.from({ length: 1005 }, (_, i) => accountKey(4, `f${i % 7}`, `obj-${i}.txt`));
    for (let i = 0; i < keys.length; i += 50) {
      await Promise.all(keys.slice(i, i + 50).map((key) => store.putObject(key, Buffer.from('x'))));
    }

    // More than one 1000-key listing page.
    await expect(store.deletePrefix(doomed)).resolves.toBe(1005);
    expect(await store.listPage({ prefix: doomed, limit: 10 })).toEqual({ files: [], folders: [], nextKey: null });
    expect(await store.statObject(neighbour)).not.toBeNull();
    await expect(store.deletePrefix(doomed)).resolves.toBe(0);
  });

  it('deletes single objects, also when already gone', async () => {
    const key = accountKey(5, 'gone.txt');
    await store.putObject(key, Buffer.from('bye'));
    await store.deleteObject(key);
    expect(await store.statObject(key)).toBeNull();
    await expect(store.deleteObject(key)).resolves.toBeUndefined();
  });

  it('refuses invalid keys before making any request', async () => {
    const bad = ['/absolute.png', 'accounts/1/../2/x.png', 'accounts//1/x', 'accounts/1/\u0007bell'];
    for (const key of bad) {
      await expect(store.putObject(key, Buffer.from('x'))).rejects.toBeInstanceOf(InvalidObjectKeyError);
      await expect(store.statObject(key)).rejects.toBeInstanceOf(InvalidObjectKeyError);
      await expect(store.getObject(key)).rejects.toBeInstanceOf(InvalidObjectKeyError);
      await expect(store.deleteObject(key)).rejects.toBeInstanceOf(InvalidObjectKeyError);
    }
    await expect(store.deletePrefix('')).rejects.toThrow(/whole bucket/);
    await expect(store.listPage({ prefix: '../', limit: 1 })).rejects.toBeInstanceOf(InvalidObjectKeyError);
    await expect(store.listPage({ prefix: '', limit: 1001 })).rejects.toThrow(/limit must be/);
  });
});

describe('embedded S3 server access control', () => {
  it('rejects a client with the wrong secret or an unknown access key', async () => {
    const wrongSecret = createObjectStore({ endpoint: server.endpoint, accessKey: credentials.accessKey, secretKey: 'wrong', bucket: store.bucket });
    await expect(wrongSecret.putObject('x.txt', Buffer.from('x'))).rejects.toMatchObject({ code: 'SignatureDoesNotMatch' });
    const defaultKeys = createObjectStore({ endpoint: server.endpoint, accessKey: 'S3RVER', secretKey: 'S3RVER', bucket: store.bucket });
    await expect(defaultKeys.getObjectBuffer(accountKey(1, 'library', 'logo.png'))).rejects.toMatchObject({ code: 'InvalidAccessKeyId' });
    await expect(defaultKeys.ping()).rejects.toBeInstanceOf(ObjectStoreUnavailableError);
  });

  it('refuses anonymous requests but serves presigned URLs', async () => {
    const key = accountKey(6, 'shared file.txt');
    await store.putObject(key, Buffer.from('presigned'), { contentType: 'text/plain' });
    const anonymous = await fetch(`${server.endpoint}/${store.bucket}/${encodeURI(key)}`);
    expect(anonymous.status).toBe(403);

    const client = createMinioClient({ endpoint: server.endpoint, ...credentials });
    const url = await client.presignedGetObject(store.bucket, key, 60);
    const presigned = await fetch(url);
    expect(presigned.status).toBe(200);
    expect(await presigned.text()).toBe('presigned');
  });
});

describe('ObjectStore.ping', () => {
  it('fails fast for a missing bucket and for a server that is not there', async () => {
    const missingBucket = createObjectStore({ endpoint: server.endpoint, ...credentials, bucket: 'no-such-bucket-here' });
    await expect(missingBucket.ping()).rejects.toThrow(/does not exist/);

    const closedPort = await unusedPort();
    const nowhere = createObjectStore({ endpoint: `http://127.0.0.1:${closedPort}`, ...credentials, bucket: 'any-bucket' });
    const started = Date.now();
    await expect(nowhere.ping(1000)).rejects.toBeInstanceOf(ObjectStoreUnavailableError);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

async function unusedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
