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
});

export type StorageLibraryConfig = z.infer<typeof storageLibraryConfigSchema>;

export const loadStorageLibraryConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(storageLibraryConfigSchema, env);
