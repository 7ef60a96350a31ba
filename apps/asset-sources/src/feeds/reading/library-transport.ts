import { Readable } from 'node:stream';
import type { FeedLocation } from '../feed-reading';
import { feedNotFound, feedTooLarge, feedUnreachable } from './feed-errors';
import type { FeedBytes, FeedReadLimits, FeedTransport } from './feed-transport';

/** One chunk of a library file as storage-library answers it (ReadLibraryFile). */
export interface LibraryChunk {
  found: boolean;
  sizeBytes: number;
  etag: string;
  data: Uint8Array;
}

/** Reads a chunk of a file of one account's asset library (storage-library, which owns the library). */
export type LibraryChunkReader = (accountId: number, path: string, offset: number, length: number) => Promise<LibraryChunk>;

/** Bytes asked per call: storage-library's own bound (1 MiB), so a feed streams in constant memory. */
export const LIBRARY_CHUNK_BYTES = 1024 * 1024;

/**
 * Feeds named by `fileId`, a file of the account's asset library: its bytes are pulled from
 * storage-library a chunk at a time as the parser asks for them, under the same byte and time caps as
 * any transport. The library is ours, so there is no outbound fetch to guard; the file's ETag is the
 * feed's version, so an unchanged file is skipped like an unchanged URL.
 */
export function libraryTransport(readChunk: LibraryChunkReader, chunkBytes = LIBRARY_CHUNK_BYTES): FeedTransport {
  return {
    async open(location: FeedLocation, limits: FeedReadLimits, signal?: AbortSignal): Promise<FeedBytes> {
      const path = (location.fileId ?? '').replace(/^\/+/, '');
      const where = `asset-library file ${path}`;
      const deadline = Date.now() + limits.timeoutMs;
      const read = async (offset: number): Promise<LibraryChunk> => {
        if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('The feed read was aborted.');
        if (Date.now() > deadline) throw feedUnreachable(`Reading ${where} took longer than ${limits.timeoutMs} ms.`);
        return readChunk(location.accountId, path, offset, chunkBytes);
      };
      const first = await read(0);
      if (!first.found) throw feedNotFound(`${where} (it is not a file of the account's asset library)`);
      if (first.sizeBytes > limits.maxBytes) throw feedTooLarge(where, limits.maxBytes);

      async function* chunks(): AsyncGenerator<Buffer> {
        let chunk = first;
        let offset = 0;
        for (;;) {
          if (chunk.data.length > 0) yield Buffer.from(chunk.data);
          offset += chunk.data.length;
          if (offset >= first.sizeBytes || chunk.data.length === 0) break;
          chunk = await read(offset);
          // Replaced while being read: the rows so far and the rest would belong to two different files.
          if (!chunk.found || chunk.etag !== first.etag) throw feedUnreachable(`${where} changed while it was being read; the next run reads it again.`);
        }
        if (offset !== first.sizeBytes) throw feedUnreachable(`${where} ended after ${offset} of its ${first.sizeBytes} bytes.`);
      }
      return { body: Readable.from(chunks(), { objectMode: false }), version: { etag: first.etag } };
    },
  };
}
