import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedS3, type EmbeddedS3 } from '../embedded-s3-server';
import { MIN_PART_SIZE } from '../multipart-upload';
import { createObjectStore, type ObjectStore } from '../object-store';
import { ObjectNotFoundError } from '../object-store.errors';
import { readStoredZipEntry } from './stored-zip-entry';
import { StoredZipWriter } from './stored-zip-writer';

jest.setTimeout(60_000);

const credentials = { accessKey: 'it-access-key', secretKey: 'it-secret-key' };
let directory: string;
let server: EmbeddedS3;
let store: ObjectStore;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'platform-s3-zip-it-'));
  server = await startEmbeddedS3({ port: 0, directory, ...credentials });
  store = createObjectStore({ endpoint: server.endpoint, ...credentials, bucket: `it-${randomUUID().slice(0, 8)}`, partSizeBytes: MIN_PART_SIZE });
  await store.ensureBucket();
});

afterAll(async () => {
  await server?.close();
  if (directory) await rm(directory, { recursive: true, force: true });
});

describe('a stored zip streamed into the object store', () => {
  it('is one object whose entries are read back one range request each, by the offsets the writer answered', async () => {
    const zip = new StoredZipWriter();
    // Over one part: the zip goes up as a multipart upload while entries are still being added.
    const files = Array.from({ length: 12 }, (_, i) => ({ name: `${i}-SKU-${i}.png`, bytes: randomBytes(i === 5 ? MIN_PART_SIZE : 20_000 + i) }));
    const put = store.putObject('accounts/1/exports/q/x.zip', zip.output, { contentType: 'application/zip' });
    const entries = [];
    for (const file of files) entries.push(await zip.add(file.name, file.bytes));
    await zip.end();
    const { size } = await put;
    expect((await store.statObject('accounts/1/exports/q/x.zip'))?.size).toBe(size);

    for (const [i, entry] of entries.entries())
      expect((await readStoredZipEntry(store, 'accounts/1/exports/q/x.zip', entry))?.equals(files[i].bytes)).toBe(true);

    // An index that does not match the zip answers nothing rather than other bytes.
    const [first, second] = entries;
    expect(await readStoredZipEntry(store, 'accounts/1/exports/q/x.zip', { ...first, name: second.name })).toBeNull();
    expect(await readStoredZipEntry(store, 'accounts/1/exports/q/x.zip', { ...first, offset: first.offset + 1 })).toBeNull();
    expect(await readStoredZipEntry(store, 'accounts/1/exports/q/x.zip', { ...first, bytes: first.bytes - 1 })).toBeNull();
    expect(await readStoredZipEntry(store, 'accounts/1/exports/q/x.zip', { ...first, offset: size + 100 })).toBeNull();
    expect(await readStoredZipEntry(store, 'accounts/1/exports/q/x.zip', { ...first, offset: 3 })).toBeNull();
    await expect(readStoredZipEntry(store, 'accounts/1/exports/q/missing.zip', first)).rejects.toBeInstanceOf(ObjectNotFoundError);
  });

  it('leaves no object when the writer is aborted midway', async () => {
    const zip = new StoredZipWriter();
    const put = store.putObject('accounts/1/exports/q/aborted.zip', zip.output, { contentType: 'application/zip' });
    await zip.add('a.png', randomBytes(MIN_PART_SIZE + 10));
    await zip.add('b.png', randomBytes(MIN_PART_SIZE + 10));
    zip.abort(new Error('render failed'));
    await expect(put).rejects.toThrow('render failed');
    expect(await store.statObject('accounts/1/exports/q/aborted.zip')).toBeNull();
  });
});
