import { commonFields, loadConfig, mysqlFields, natsFields, optionalUrl, port, secretKey, url, z } from '@platform/config';

export const channelsPlansConfigSchema = z.object({
  ...commonFields,
  ...mysqlFields,
  ...natsFields,
  GRPC_HOST: z.string().default('127.0.0.1'),
  GRPC_PORT: port(50051),
  /** Shared by the gateway and services to sign and verify the caller's principal. */
  INTERNAL_AUTH_KEY: secretKey.optional(),
  /** AES-256-GCM key for secrets at rest (the on-site ad-server API keys). */
  SECRETS_ENCRYPTION_KEY: secretKey.optional(),
  PUBLIC_BASE_URL: url('http://localhost:8080', ['http', 'https']),
  /** Where retailers' sites reach the on-site ad server; defaults under PUBLIC_BASE_URL. */
  ONSITE_API_BASE_URL: optionalUrl(['http', 'https']),
});

export type ChannelsPlansConfig = z.infer<typeof channelsPlansConfigSchema>;

export const loadChannelsPlansConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(channelsPlansConfigSchema, env);
