import { AppError } from '@platform/errors';
import type { FeedLocation } from '../feed-reading';
import { createFeedReader } from './feed-reader';
import { CSV_FORMAT, readAll } from './feed-test-servers';
import { libraryTransport, type LibraryChunk, type LibraryChunkReader } from './library-transport';

const ACCOUNT = 12;
const at = (fileId: string): FeedLocation => ({ accountId: ACCOUNT, urlType: 'http', url: '', urlConfig: {}, fileId });

/** The account's library as storage-library answers ReadLibraryFile, with every call recorded. */
function library(files: Record<string, { body: Buffer; etag: string }>) {
  const calls: { accountId: number; path: string; offset: number; length: number }[] = [];
  const read: LibraryChunkReader = async (accountId, path, offset, length): Promise<LibraryChunk> => {
    calls.push({ accountId, path, offset, length });
    const file = accountId === ACCOUNT ? files[path] : undefined;
    if (!file) return { found: false, sizeBytes: 0, etag: '', data: new Uint8Array() };
    return { found: true, sizeBytes: file.body.length, etag: file.etag, data: file.body.subarray(offset, offset + length) };
  };
  return { read, calls };
}

const readerOf = (read: LibraryChunkReader, chunkBytes: number, maxBytes = 10_000_000) =>
  createFeedReader({ transports: {}, library: libraryTransport(read, chunkBytes), limits: { maxBytes, timeoutMs: 5_000 } });

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('feeds from the asset library (fileId)', () => {
  const rows = Array.from({ length: 500 }, (_, i) => `P${i},"Product, ${i}",${i}.99`);
  const csv = Buffer.from(`sku,name,price\n${rows.join('\n')}\n`);

  it('streams the file chunk by chunk through the parser, rows split across chunks whole, its ETag as the version', async () => {
    const { read, calls } = library({ 'feeds/products.csv': { body: csv, etag: 'abc' } });
    const opened = await readerOf(read, 1_000).open(at('/feeds/products.csv'), CSV_FORMAT);
    const { rows: parsed, rejected } = await readAll(opened);
    expect(rejected).toEqual([]);
    expect(parsed).toHaveLength(500);
    expect(parsed[137].values).toEqual({ sku: 'P137', name: 'Product, 137', price: '137.99' });
    expect(opened.version).toEqual({ etag: 'abc' });
    // Constant memory: one bounded chunk per call, in order, the leading slash of fileId dropped.
    expect(calls).toHaveLength(Math.ceil(csv.length / 1_000));
    expect(calls.every((call, i) => call.offset === i * 1_000 && call.length === 1_000 && call.path === 'feeds/products.csv')).toBe(true);
  });

  it("refuses a file that is not in the account's library, and one over the byte cap before reading it", async () => {
    const { read, calls } = library({ 'feeds/products.csv': { body: csv, etag: 'abc' } });
    expect(await codeOf(readerOf(read, 1_000).open(at('feeds/missing.csv'), CSV_FORMAT))).toBe('FEED_NOT_FOUND');
    expect(await codeOf(readerOf(read, 1_000, 100).open(at('feeds/products.csv'), CSV_FORMAT))).toBe('FEED_TOO_LARGE');
    expect(calls).toHaveLength(2);
  });

  it('fails the read when the file is replaced while it is read, rather than mixing two versions', async () => {
    const files = { 'feeds/products.csv': { body: csv, etag: 'v1' } };
    const { read } = library(files);
    const opened = await readerOf(read, 1_000).open(at('feeds/products.csv'), CSV_FORMAT);
    files['feeds/products.csv'] = { body: csv, etag: 'v2' };
    expect(await codeOf(readAll(opened))).toBe('FEED_UNREACHABLE');
  });
});
