import type { Readable } from 'node:stream';
import { redactUrl } from '@platform/outbound-fetch';
import type { FeedLocation, FeedVersion } from '../feed-reading';

/** The caps every transport holds a feed to. */
export interface FeedReadLimits {
  /** Bytes of one feed; past it the read fails with FEED_TOO_LARGE. */
  maxBytes: number;
  /** Time to connect and read the whole feed. */
  timeoutMs: number;
  /** The longest the host may send nothing (before the first byte, then between chunks): a hung host fails the read then, not at timeoutMs. */
  idleTimeoutMs?: number;
}

/** A feed's bytes as one transport serves them. */
export interface FeedBytes {
  body: Readable;
  version: FeedVersion;
  /** sftp: the fingerprint of the host key the server presented (`SHA256:...`). */
  hostKeyFingerprint?: string;
}

/** One way of reaching a feed (http, ftp, sftp, object storage, the asset library). */
export interface FeedTransport {
  open(location: FeedLocation, limits: FeedReadLimits, signal?: AbortSignal): Promise<FeedBytes>;
}

/** Where a feed is, for messages: the URL as the outbound guard's messages show one (`redactUrl`: no userinfo, query or fragment). */
export function describeFeedUrl(url: string): string {
  return URL.canParse(url) ? redactUrl(url) : 'the feed URL';
}
