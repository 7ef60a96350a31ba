export { createFeedReader, emptyFeedConfig, type FeedReaderDeps } from './feed-reader';
export type { FeedBytes, FeedReadLimits, FeedTransport } from './feed-transport';
export { httpTransport, feedHttpRequest } from './http-transport';
