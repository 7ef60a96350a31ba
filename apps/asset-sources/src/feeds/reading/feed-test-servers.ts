import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOutboundFetch } from '@platform/outbound-fetch';
import type { FeedFormat, FeedLocation, FeedRow, OpenedFeed, RejectedFeedRow } from '../feed-reading';
import { isRejectedFeedRow } from '../feed-reading';
import { createFeedReader, type FeedReaderDeps } from './feed-reader';
import type { FeedParsing } from './feed-parsing';
import { httpTransport } from './http-transport';

/** A real HTTP server on 127.0.0.1 for feed specs, answering what `route` says per path. */
export interface FeedHttpServer {
  origin: string;
  hostPort: string;
  requests: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }>;
  close(): Promise<void>;
}

export async function startFeedHttpServer(route: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<FeedHttpServer> {
  const requests: FeedHttpServer['requests'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      route(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A reader over http(s) only, with `allowlist` admitted past the outbound guard; `parsing` as the service's ingestion sets it, when given. */
export function httpFeedReader(allowlist: string[], limits: Partial<FeedReaderDeps['limits']> = {}, parsing?: FeedParsing) {
  const outbound = createOutboundFetch({ allowlist });
  const http = httpTransport(outbound);
  return createFeedReader({ transports: { http, https: http }, limits: { maxBytes: 1024 * 1024, timeoutMs: 5_000, ...limits }, parsing });
}

export const CSV_FORMAT: FeedFormat = { contentType: 'csv', characterEncoding: 'UTF_8', csvSeparator: 'comma', firstRowIsHeader: true, cdp: false };

export const httpLocation = (url: string, urlConfig: FeedLocation['urlConfig'] = {}): FeedLocation => ({ accountId: 1, urlType: 'http', url, urlConfig });

/** Every row of an opened feed, in order. */
export async function readAll(feed: OpenedFeed): Promise<{ rows: FeedRow[]; rejected: RejectedFeedRow[]; all: Array<FeedRow | RejectedFeedRow> }> {
  const all: Array<FeedRow | RejectedFeedRow> = [];
  for await (const batch of feed.batches) all.push(...batch);
  return { rows: all.filter((r): r is FeedRow => !isRejectedFeedRow(r)), rejected: all.filter(isRejectedFeedRow), all };
}
