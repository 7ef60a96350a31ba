import { loadConfig, optionalUrl, secretKey, url, z } from '@platform/config';
import { SERVICE_ENDPOINTS } from '@contracts/proto';
import { grpcServiceFields, peerAddressFields } from '@platform/service';

export const channelsPlansConfigSchema = z.object({
  ...grpcServiceFields,
  /** TEMPLATES_ADDR: campaigns built from a template are checked with the templates service. */
  ...peerAddressFields([SERVICE_ENDPOINTS.templates]),
  /** AES-256-GCM key for secrets at rest (the on-site ad-server API keys). */
  SECRETS_ENCRYPTION_KEY: secretKey.optional(),
  PUBLIC_BASE_URL: url('http://localhost:8080', ['http', 'https']),
  /** Where retailers' sites reach the on-site ad server; defaults under PUBLIC_BASE_URL. */
  ONSITE_API_BASE_URL: optionalUrl(['http', 'https']),
});

export type ChannelsPlansConfig = z.infer<typeof channelsPlansConfigSchema>;

export const loadChannelsPlansConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(channelsPlansConfigSchema, env);

/** The on-site ad-server API base: configured, or under the public base URL. */
export const onsiteApiBaseUrl = (config: ChannelsPlansConfig) => config.ONSITE_API_BASE_URL ?? `${config.PUBLIC_BASE_URL.replace(/\/$/, '')}/onsite/v1`;
