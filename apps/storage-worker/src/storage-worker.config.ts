import { s3Fields, secretKey, z } from '@platform/config';
import { workerFields } from '@platform/service';

export const storageWorkerConfigSchema = z.object({
  ...workerFields,
  ...s3Fields,
  /** Opens the cloud-service credentials storage-library sealed (same key). */
  SECRETS_ENCRYPTION_KEY: secretKey.optional(),
  /** host:port entries a customer's endpoint may name although they are loopback or private (tests, on-premise). */
  OUTBOUND_ALLOWLIST: z.string().default(''),
  /** Where a zip is spooled while it is extracted (random access needs a file); the OS temp dir by default. */
  STORAGE_WORKER_TMP_DIR: z.string().optional(),
});

export type StorageWorkerConfig = z.infer<typeof storageWorkerConfigSchema>;
