/**
 * The seam between reading a feed (transports, encodings, formats, the customCode sandbox: `reading/`)
 * and what is done with its rows (process, create, ingestion jobs, scheduling). Readers stream: a feed
 * of any size is read in constant memory, one row at a time.
 */

// The enumerations are declared once in @contracts/domain, where the gateway's schemas read them too.
import type { FeedCharacterEncoding, FeedContentType, FeedCsvSeparator, FeedUrlType } from '@contracts/domain';
export {
  FEED_URL_TYPES,
  FEED_CHARACTER_ENCODINGS,
  FEED_CSV_SEPARATORS,
  FEED_CONTENT_TYPES,
  type FeedUrlType,
  type FeedCharacterEncoding,
  type FeedCsvSeparator,
  type FeedContentType,
} from '@contracts/domain';

/** Credentials in the clear: only ever in memory, opened from the secrets box just before a read. */
export interface FeedUrlConfig {
  additionalParams?: string;
  httpMethod?: 'GET' | 'POST';
  username?: string;
  password?: string;
  accessKey?: string;
  secretKey?: string;
  portNumber?: number;
  privateKey?: string;
  /** objstore extensions: an S3-compatible server's base URL for an s3:// url (default AWS S3), and the signing region (default us-east-1). */
  endpoint?: string;
  region?: string;
  /** sftp extension: the fingerprint the server's host key must have (`SHA256:...`); a source pins the first one it meets. */
  hostKeyFingerprint?: string;
}

/** Where the feed is: a URL of one of the transports, or a file of the account's asset library. */
export interface FeedLocation {
  accountId: number;
  urlType: FeedUrlType;
  url: string;
  urlConfig: FeedUrlConfig;
  /** When set, the feed is this asset-library file and url/urlType are not fetched. */
  fileId?: string;
}

/** The `config` answered by process (36) and stored with the source (37). */
export interface FeedConfig {
  rootIsObject: boolean;
  rowXPath: string;
  xpathMap: Record<string, string>;
  csvColumns: Record<string, number>;
  memPerRow: number;
  estRowsPerChunk: number;
  oneRowPerObject: boolean;
  rootIsArray: boolean;
  cdp: boolean;
  fileId: string;
  cdpXpathMap: Record<string, string>;
}

export interface FeedFormat {
  contentType: FeedContentType;
  characterEncoding: FeedCharacterEncoding;
  csvSeparator: FeedCsvSeparator;
  firstRowIsHeader: boolean;
  /** From process; absent, the reader detects what it needs from the head of the feed. */
  config?: FeedConfig;
  /** JavaScript run in the sandbox over each row when cdp is true. */
  customCode?: string;
  cdp: boolean;
}

/** One row: `line` is where it starts in the feed (1-based), for the health report. */
export interface FeedRow {
  line: number;
  values: Record<string, string>;
}

/** Rows read together, in feed order. */
export type FeedRowBatch = readonly (FeedRow | RejectedFeedRow)[];

/** A row the reader could not turn into values (a broken quote, an element that is not a row). */
export interface RejectedFeedRow {
  line: number;
  reason: string;
  /** The row as read, when it was (customCode failed on it, two of its JSON members named one column): its key goes into the health report. */
  asRead?: Record<string, string>;
}

/** What the transport said about the version it served, to skip an unchanged feed. */
export interface FeedVersion {
  etag?: string;
  lastModified?: string;
}

export interface OpenedFeed {
  version: FeedVersion;
  /** sftp: the fingerprint of the host key the server presented (`SHA256:...`). */
  hostKeyFingerprint?: string;
  /**
   * Rows in feed order, in batches (a batch per chunk read, so a million rows are not a million
   * asynchronous steps); a RejectedFeedRow where a row is broken but the feed goes on. Throws when
   * the feed itself is broken.
   */
  batches: AsyncIterable<FeedRowBatch>;
  /** sha256 hex of the bytes read, known once `batches` has been consumed to the end. */
  contentHash(): string;
  /**
   * Where the bytes of a feed read as UTF-8 (its characterEncoding, or its BOM's) first are not, as far as
   * they were read: its text then reads wrong, and its owner is told so. Null while they are.
   */
  notUtf8(): { at: number; byte: number } | null;
  /** Lines of console output and errors of the customCode sandbox, so far. */
  cdpLogs(): string[];
  /** The config read with: the one given, else what was detected from the head (complete once the first row is out). */
  config(): FeedConfig;
  close(): Promise<void>;
}

export interface FeedOpenOptions {
  /** Stops the transfer and the parser when it aborts. */
  signal?: AbortSignal;
  /** A shorter time cap than the reader's own for this read: its caller waits no longer than this. */
  timeoutMs?: number;
}

export interface FeedReader {
  open(location: FeedLocation, format: FeedFormat, options?: FeedOpenOptions): Promise<OpenedFeed>;
}

/**
 * What the owner of a feed read as UTF-8 whose bytes are not should hear: where, and what to set. Most
 * such feeds are spreadsheet exports in CP1252 or ISO-8859-1, whose accented letters read as U+FFFD.
 */
export const notUtf8Advice = ({ at, byte }: { at: number; byte: number }): string =>
  `the feed is not UTF-8 from byte ${at} on (0x${byte.toString(16).toUpperCase().padStart(2, '0')}), so some of its text reads wrong: ` +
  'set characterEncoding to its encoding (CP1252 or iso_8859_1 for most spreadsheet exports)';

export const isRejectedFeedRow = (row: FeedRow | RejectedFeedRow): row is RejectedFeedRow => 'reason' in row;
