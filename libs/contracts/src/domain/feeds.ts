/**
 * Values of feed asset sources that the gateway and asset-sources both need: the enumerations of the
 * feed bodies (process, create, update), the schedule, the extensions' policies and the bounds.
 */

export const FEED_URL_TYPES = ['https', 'http', 'objstore', 'ftp', 'sftp'] as const;
export const FEED_CHARACTER_ENCODINGS = ['UTF_8', 'iso_8859_1', 'CP1252', 'utf_16le'] as const;
export const FEED_CSV_SEPARATORS = ['comma', 'tab', 'pipe', 'auto'] as const;
export const FEED_CONTENT_TYPES = ['xml', 'json', 'csv'] as const;
export const FEED_HTTP_METHODS = ['GET', 'POST'] as const;

export type FeedUrlType = (typeof FEED_URL_TYPES)[number];
export type FeedCharacterEncoding = (typeof FEED_CHARACTER_ENCODINGS)[number];
export type FeedCsvSeparator = (typeof FEED_CSV_SEPARATORS)[number];
export type FeedContentType = (typeof FEED_CONTENT_TYPES)[number];

/** How often a scheduled feed is fetched again; the first run of a day or week is at startTime, US Eastern. */
export const FEED_FREQUENCIES = ['HOURLY', 'DAILY', 'WEEKLY'] as const;
export type FeedFrequency = (typeof FEED_FREQUENCIES)[number];
/** The time zone startTime is read in (daylight saving time included). */
export const FEED_SCHEDULE_TIME_ZONE = 'America/New_York';

/**
 * What happens to a row whose key is gone from a new version of the feed (extension): `delete` drops it,
 * `disable` keeps it aside (never served or mapped; back when the key returns), `keep` keeps serving it.
 */
export const FEED_MISSING_ROW_POLICIES = ['delete', 'disable', 'keep'] as const;
export type FeedMissingRowPolicy = (typeof FEED_MISSING_ROW_POLICIES)[number];

/** What starts an ingestion run: a create, an update, the owner's refresh (extension) or the schedule. */
export const FEED_RUN_TRIGGERS = ['create', 'update', 'refresh', 'schedule'] as const;
export type FeedRunTrigger = (typeof FEED_RUN_TRIGGERS)[number];

/**
 * A run's states. Skipped: a scheduled run found the feed unchanged. Held: the shrink guard holds its
 * version. Cancelled: its owner cancelled it (extension) before it was served, or discarded the version
 * it held. The queue shows Completed for Completed and Skipped, Failed for Held, Failed and Cancelled.
 */
export const FEED_RUN_STATUSES = ['Queued', 'Processing', 'Completed', 'Skipped', 'Held', 'Failed', 'Cancelled'] as const;
export type FeedRunStatus = (typeof FEED_RUN_STATUSES)[number];

/**
 * The runs of a feed source kept, newest first, with their health reports: older ones are dropped as
 * runs end (the run serving and the one held are always kept), so an hourly feed's history stays bounded.
 */
export const FEED_RUNS_KEPT = 100;

/** The shrink guard's default: a new version with more than this share fewer rows (or none) is held. */
export const FEED_SHRINK_GUARD_DEFAULT_PERCENT = 50;

/** The secret members of urlConfig: sealed at rest, never answered, logged or put on NATS. */
export const FEED_SECRET_FIELDS = ['username', 'password', 'accessKey', 'secretKey', 'privateKey'] as const;
export type FeedSecretField = (typeof FEED_SECRET_FIELDS)[number];

export const FEED_URL_MAX = 2048;
export const FEED_ADDITIONAL_PARAMS_MAX = 4096;
export const FEED_CREDENTIAL_MAX = 256;
export const FEED_PRIVATE_KEY_MAX = 16_384;
export const FEED_CUSTOM_CODE_MAX = 65_536;
export const FEED_FILE_ID_MAX = 512;
/** objstore's endpoint (an S3-compatible server's base URL) and signing region (us-east-1, eu-west-3, a MinIO server's own name). */
export const FEED_S3_ENDPOINT_MAX = 512;
export const FEED_S3_REGION_PATTERN = '^[a-z0-9][a-z0-9-]{0,62}$';
/** An SSH host key's fingerprint as OpenSSH prints it (`ssh-keygen -lf`): SHA256 and the unpadded base64 of the digest. */
export const FEED_SSH_FINGERPRINT_PATTERN = '^SHA256:[A-Za-z0-9+/]{43}$';
/** Size of the feedConfig object (process's `config`) a create or update may carry, serialized. */
export const FEED_CONFIG_MAX_BYTES = 65_536;
/** A path in feedConfig (rowXPath, an xpathMap value): an xml element or attribute path, or a json key. */
export const FEED_CONFIG_PATH_MAX = 2048;
/** The highest 0-based field position a csvColumns entry may name. */
export const FEED_CSV_FIELD_POSITION_MAX = 100_000;
/** Report entries one page of the health report answers between services (the CSV streams every page). */
export const FEED_REPORT_PAGE_ROWS = 5_000;
