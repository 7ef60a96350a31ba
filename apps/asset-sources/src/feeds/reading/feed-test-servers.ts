import { createOutboundFetch } from '@platform/outbound-fetch';
// The loopback HTTP server feed specs read from lives with the other protocol test servers.
export { startFeedHttpServer, type FeedHttpServer } from '@platform/testing';
import type { FeedFormat, FeedLocation, FeedRow, OpenedFeed, RejectedFeedRow } from '../feed-reading';
import { isRejectedFeedRow } from '../feed-reading';
import { createFeedReader, type FeedReaderDeps } from './feed-reader';
import type { FeedParsing } from './feed-parsing';
import { httpTransport } from './http-transport';

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
