import { loadConfig, s3Fields, secretKey, z } from '@platform/config';
import { grpcServiceFields } from '@platform/service';

export const storageLibraryConfigSchema = z.object({
  ...grpcServiceFields,
  /** The platform's bucket: every account's library lives under accounts/<accountId>/. */
  ...s3Fields,
  /** Seals cloud-service credentials at rest (AES-256-GCM); the storage worker opens them with the same key. */
  SECRETS_ENCRYPTION_KEY: secretKey.optional(),
  /** host:port entries a customer's endpoint may name although they are loopback or private (tests, on-premise). */
  OUTBOUND_ALLOWLIST: z.string().default(''),
  /** How often each replica looks for webhook deliveries that are due; 0 turns the delivery loop off. */
  WEBHOOK_POLL_INTERVAL_MS: z.coerce.number().int().min(0).default(1_000),
  /** Time one webhook POST may take. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** Retry delay after a failed attempt, doubling up to WEBHOOK_RETRY_MAX_MS. */
  WEBHOOK_RETRY_INITIAL_MS: z.coerce.number().int().min(1).default(10_000),
  WEBHOOK_RETRY_MAX_MS: z.coerce.number().int().min(1).default(3_600_000),
  /** Attempts of one delivery before it fails. */
  WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(8),
});

export type StorageLibraryConfig = z.infer<typeof storageLibraryConfigSchema>;

export const loadStorageLibraryConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(storageLibraryConfigSchema, env);
