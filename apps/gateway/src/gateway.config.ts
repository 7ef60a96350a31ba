import { backendAddressFields } from './backends/backend.registry';
import { STORAGE_LIMITS } from '@contracts/domain';
import { commonFields, loadConfig, mysqlFields, natsFields, optionalUrl, port, s3Fields, secretKey, z } from '@platform/config';

export const gatewayConfigSchema = z.object({
  ...commonFields,
  ...mysqlFields,
  ...natsFields,
  HOST: z.string().default('127.0.0.1'),
  PORT: port(8080),
  /** Admin API bearer token; required in production, `dev-admin-token` (with a warning) elsewhere. */
  ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  INTERNAL_AUTH_KEY: secretKey.optional(),
  /** Base of the absolute URLs the API returns (pagination links); defaults to the request's host. */
  PUBLIC_BASE_URL: optionalUrl(['http', 'https']),
  /**
   * The ad server the gateway forwards the ad-serving paths (`/serve/...`) to, so that tags pointing at
   * PUBLIC_BASE_URL work locally (`npm start` sets it). Unset in a cluster, where the ingress routes them.
   */
  AD_SERVER_URL: optionalUrl(['http', 'https']),
  /** Requests per minute each API key may make, over every gateway replica (counted in MySQL); 0 disables the limit. */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(6000),
  /** Requests per minute an account may take, over every key acting in it and every replica; 0 disables the limit. */
  RATE_LIMIT_ACCOUNT_PER_MINUTE: z.coerce.number().int().min(0).default(12000),
  /** Longest a request waits for the shared rate-limit counter before going through uncounted (fail open). */
  RATE_LIMIT_COUNTER_WAIT_MS: z.coerce.number().int().min(1).max(10_000).default(100),
  /** How long an Idempotency-Key and the first answer to it are kept (24 h). */
  IDEMPOTENCY_TTL_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(24 * 3_600_000),
  /** How long a request running under an Idempotency-Key holds it before a retry may take it over (its gateway died). */
  IDEMPOTENCY_LEASE_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(5 * 60_000),
  /** Port of the Prometheus /metrics listener, kept off the public port; unset disables it. */
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /** `host:port` of each gRPC backend (CHANNELS_PLANS_ADDR, ...), one per entry of the backend registry. */
  ...backendAddressFields((defaultAddress) => z.string().default(defaultAddress)),
  GRPC_DEADLINE_MS: z.coerce.number().int().min(100).max(120_000).default(5_000),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  /** The object store uploads are staged in and library files are served from (GET /files/...). */
  ...s3Fields,
  /** Largest asset-library upload; a larger one is refused with 413 and nothing is kept. */
  UPLOAD_MAX_BYTES: z.coerce.number().int().min(1).max(STORAGE_LIMITS.uploadMaxBytes).default(STORAGE_LIMITS.uploadMaxBytes),
  /** Set when a proxy or load balancer sits in front, so req.protocol/host honour X-Forwarded-*. */
  TRUST_PROXY: z.enum(['true', 'false']).default('false'),
  /**
   * How long a resolved API-key principal may be served from memory. Revocations reach every replica
   * over NATS at once; the TTL only bounds what a missed broadcast could cost. 0 disables the cache.
   */
  PRINCIPAL_CACHE_TTL_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  /** Most principals one gateway process keeps; the least recently used go first. */
  PRINCIPAL_CACHE_MAX_ENTRIES: z.coerce.number().int().min(1).default(10_000),
  /**
   * How long an answer of a cacheable route (the org's media-channel list) may be served from memory.
   * The owning service announces every change over NATS before it answers the write; the TTL only
   * bounds what a missed notice could cost. 0 disables the cache.
   */
  RESPONSE_CACHE_TTL_MS: z.coerce.number().int().min(0).max(3_600_000).default(10_000),
  /** Bytes of response bodies one gateway process keeps; the least recently used go first. */
  RESPONSE_CACHE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(64 * 1024 * 1024),
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

export const loadGatewayConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(gatewayConfigSchema, env);

export const DEV_ADMIN_TOKEN = 'dev-admin-token';

export function resolveAdminToken(config: GatewayConfig, warn: (message: string) => void): string {
  if (config.ADMIN_TOKEN) return config.ADMIN_TOKEN;
  if (config.NODE_ENV === 'production') throw new Error('ADMIN_TOKEN is required in production');
  warn(`ADMIN_TOKEN is not set; the admin API accepts "${DEV_ADMIN_TOKEN}"`);
  return DEV_ADMIN_TOKEN;
}
