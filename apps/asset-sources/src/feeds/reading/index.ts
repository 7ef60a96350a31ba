import { createGuardedConnector, createOutboundFetch } from '@platform/outbound-fetch';
import type { FeedReader } from '../feed-reading';
import { createFeedReader } from './feed-reader';
import type { FeedParsing } from './feed-parsing';
import type { FeedReadLimits, FeedTransport } from './feed-transport';
import { ftpTransport } from './ftp-transport';
import { httpTransport } from './http-transport';
import { objstoreTransport } from './objstore-transport';
import { sftpTransport } from './sftp-transport';

export { createFeedReader, emptyFeedConfig, type FeedReaderDeps } from './feed-reader';
export { parseHere, parseInWorker, type FeedParsing } from './feed-parsing';
export type { FeedBytes, FeedReadLimits, FeedTransport } from './feed-transport';
export { httpTransport, feedHttpRequest } from './http-transport';
export { libraryTransport, LIBRARY_CHUNK_BYTES, type LibraryChunkReader } from './library-transport';

/**
 * The feed reader of every transport, each through the outbound guard: `allowlist` (parsed
 * OUTBOUND_ALLOWLIST) admits named loopback or private endpoints; `library` reads asset-library files;
 * `parsing` says where the bytes are parsed (a thread of its own for whole feeds).
 */
export function feedReaderFor(options: { allowlist: readonly string[]; limits: FeedReadLimits; library?: FeedTransport; parsing?: FeedParsing }): FeedReader {
  const outbound = createOutboundFetch({ allowlist: options.allowlist });
  const connector = createGuardedConnector({ allowlist: options.allowlist });
  const http = httpTransport(outbound);
  return createFeedReader({
    transports: { http, https: http, ftp: ftpTransport(connector), sftp: sftpTransport(connector), objstore: objstoreTransport(outbound) },
    library: options.library,
    limits: options.limits,
    parsing: options.parsing,
  });
}
