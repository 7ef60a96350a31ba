import { isDeepStrictEqual } from 'node:util';
import type {
  FeedCharacterEncoding,
  FeedContentType,
  FeedCsvSeparator,
  FeedFrequency,
  FeedRunStatus,
  FeedRunTrigger,
  FeedMissingRowPolicy,
  FeedSecretField,
  FeedUrlType,
} from '@contracts/domain';
import type { SourceDefinition } from '../sources/asset-source.model';
import type { FeedConfig } from './feed-reading';

/** urlConfig without its secrets: what may be stored in the clear and answered. */
export interface FeedUrlSettings {
  additionalParams?: string;
  httpMethod?: 'GET' | 'POST';
  portNumber?: number;
  /** objstore (extension): the S3-compatible server of an s3:// url, and the signing region. */
  endpoint?: string;
  region?: string;
  /** sftp (extension): the fingerprint the server's host key must have; pinned by the first run when not given. */
  hostKeyFingerprint?: string;
}

/** The secret members of urlConfig, in the clear: only in memory, sealed before they are stored. */
export type FeedSecrets = Partial<Record<FeedSecretField, string>>;

export interface FeedLocationSettings {
  urlType: FeedUrlType;
  url: string;
  fileId: string | null;
  urlConfig: FeedUrlSettings;
}

export interface FeedFormatSettings {
  contentType: FeedContentType;
  characterEncoding: FeedCharacterEncoding;
  csvSeparator: FeedCsvSeparator;
  firstRowIsHeader: boolean;
  cdp: boolean;
  customCode: string | null;
  /** Process's `config`, when the source was created from it (37); null for a direct create (38). An update without one keeps it. */
  feedConfig: FeedConfig | null;
}

export interface FeedScheduleSettings {
  isScheduled: boolean;
  frequency: FeedFrequency | null;
  startTime: string | null;
  endDate: string | null;
}

export interface FeedPolicies {
  missingRowPolicy: FeedMissingRowPolicy;
  shrinkGuardPercent: number;
}

/** A create (37, 38) or update (39) as the service takes it. */
export interface FeedSourceInput {
  definition: SourceDefinition;
  location: FeedLocationSettings;
  secrets: FeedSecrets;
  format: FeedFormatSettings;
  schedule: FeedScheduleSettings;
  /** Absent members keep their stored value on update and take the defaults on create. */
  policies: Partial<FeedPolicies>;
}

export interface FeedSettings {
  location: FeedLocationSettings;
  format: FeedFormatSettings;
  schedule: FeedScheduleSettings;
  policies: FeedPolicies;
}

export interface FeedSourceRecord extends FeedSettings {
  assetSourceId: number;
  /** Which secret members are stored (their values never leave the service). */
  secretsSet: FeedSecretField[];
  sealedSecrets: Buffer | null;
  nextRunAt: Date | null;
  held: { queueId: string; reason: string } | null;
  /** Rows missing from the feed that the disable policy holds aside (counted by the swap). */
  disabledRows: number;
  applied: { queueId: string | null; etag: string | null; lastModified: string | null; contentHash: string | null };
  /** The columns an update gave while a version serves: what runs read the feed into until a swap applies them. */
  pendingColumns: FeedColumnSet | null;
}

/**
 * The columns a feed's rows are read into. The source's (asset_sources) describe the rows serving, whose
 * keys were computed with its key column; an update's wait as pending until a run's version is swapped in.
 */
export type FeedColumnSet = Pick<SourceDefinition, 'columnNames' | 'columns'>;

/** The columns a run reads the feed into: the pending ones an update gave, else the source's own. */
export const columnsToRead = (source: FeedColumnSet, feed: Pick<FeedSourceRecord, 'pendingColumns'>): FeedColumnSet =>
  feed.pendingColumns ?? { columnNames: source.columnNames, columns: source.columns };

/**
 * Whether rows read into `read` match the rows serving (`serving`) by key: both keyed by the same column.
 * The missing-row policy applies only then; a version keyed otherwise replaces the old rows whole.
 */
export const matchedByKey = (read: FeedColumnSet, serving: FeedColumnSet): boolean =>
  read.columns.assetKeyColumn != null && read.columns.assetKeyColumn === serving.columns.assetKeyColumn;

/** Whether two column sets name the same columns, in the same order, and the same special columns. */
export const sameColumns = (a: FeedColumnSet, b: FeedColumnSet): boolean => isDeepStrictEqual(comparableColumns(a), comparableColumns(b));

const comparableColumns = ({ columnNames, columns }: FeedColumnSet) => ({
  columnNames: [...columnNames],
  columns: {
    assetKeyColumn: columns.assetKeyColumn ?? null,
    assetVariantColumn: columns.assetVariantColumn ?? null,
    assetGroupColumn: columns.assetGroupColumn ?? null,
    reportingColumn: columns.reportingColumn ?? null,
    rotationWeightColumn: columns.rotationWeightColumn ?? null,
  },
});

export type { FeedRunTrigger, FeedRunStatus };

/** The health counts of one run. */
export interface FeedRunHealth {
  rowsRead: number;
  rowsStored: number;
  duplicateKeys: number;
  emptyKeys: number;
  rejectedRows: number;
}

export interface FeedRunRecord extends FeedRunHealth {
  queueId: string;
  assetSourceId: number;
  accountId: number;
  trigger: FeedRunTrigger;
  status: FeedRunStatus;
  message: string;
  etag: string | null;
  lastModified: string | null;
  contentHash: string | null;
  createdAt: Date;
  finishedAt: Date | null;
  /** When the run was cancelled (extension: by its owner, or by an update); from then on it can only end Cancelled. */
  cancelRequestedAt: Date | null;
  /** The run of the settings update that cancelled this one; null when its owner cancelled it. */
  supersededBy: string | null;
  /** While the run waits to read its feed again (a failure another try may not meet): when it does. */
  readAgainAt: Date | null;
  /** The columns the run read the feed into (null before it started reading): applied when its version is swapped in. */
  columnSet: FeedColumnSet | null;
}

export type FeedReportKind = 'rejected' | 'duplicate-key' | 'empty-key';

export interface FeedReportEntry {
  seq: number;
  line: number;
  kind: FeedReportKind;
  keyValue: string | null;
  reason: string;
}

/** What a feed-ingest job request carries: ids only, never a setting or a secret. */
export interface FeedIngestPayload {
  assetSourceId: number;
}

export const FEED_INGEST_KIND = 'feed-ingest';
