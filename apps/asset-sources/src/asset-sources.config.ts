import { msList, secretKey, z } from '@platform/config';
import { SERVICE_ENDPOINTS } from '@contracts/proto';
import { grpcServiceFields, peerAddressFields } from '@platform/service';

export const assetSourcesConfigSchema = z.object({
  ...grpcServiceFields,
  /** content-creative answers whether a motion-design fill's campaign exists; storage-library, whether its asset paths are files of the library. */
  ...peerAddressFields([SERVICE_ENDPOINTS.contentCreative, SERVICE_ENDPOINTS.storageLibrary]),
  /** `host:port,...` that remote sources may reach although loopback or private (tests, on-premise sources). */
  OUTBOUND_ALLOWLIST: z.string().default(''),
  /** Total time of one remote-source fetch; below the gateway's gRPC deadline so the customer sees the remote's failure, not ours. */
  REMOTE_FETCH_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(4_000),
  /** Largest remote-source body read. */
  REMOTE_FETCH_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(20 * 1024 * 1024),
  /** How often due recommendation sources are looked for (each recomputes every updateFrequency hours); 0 disables the timer. */
  RECOMMENDATION_SWEEP_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  /** Seals feed credentials at rest (AES-256-GCM); the same key every service and worker opens secrets with. */
  SECRETS_ENCRYPTION_KEY: secretKey.optional(),
  /** How often scheduled feeds that are due are looked for; 0 disables the timer (runs then start only on create and update). */
  FEED_SCHEDULE_SWEEP_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  /** Largest feed an ingestion reads (bytes); past it the run fails with the cause and the old rows keep serving. */
  FEED_INGEST_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(2 * 1024 * 1024 * 1024),
  /** Time one ingestion may take to read its whole feed. */
  FEED_INGEST_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(24 * 3_600_000)
    .default(30 * 60_000),
  /**
   * The longest an ingestion's feed host may send nothing (no connection, greeting or answer, then no
   * byte of the body) before the run fails: a hung host frees its slot then, not at FEED_INGEST_TIMEOUT_MS.
   * Generous, for hosts that build the feed before they send its first byte.
   */
  FEED_INGEST_IDLE_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(3_600_000)
    .default(5 * 60_000),
  /**
   * How long a run waits before reading its feed again after a failure another try may not meet (the host
   * unreachable or quiet, a 5xx or 429): one entry a retry; empty for none.
   */
  FEED_READ_RETRY_DELAYS_MS: msList('60000,300000', { min: 100, max: 3_600_000, maxEntries: 10 }),
  /** Time process (36) may take to reach a feed and read its head; never more than its caller still waits (the gateway gives process 30 s). */
  FEED_PROCESS_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(25_000),
  /** Feed-ingest jobs one replica runs at once. */
  FEED_INGEST_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(2),
  /** How long a feed-ingest delivery may go without a sign of life before another replica takes it over. */
  JOB_ACK_WAIT_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(60_000),
});

export type AssetSourcesConfig = z.infer<typeof assetSourcesConfigSchema>;
