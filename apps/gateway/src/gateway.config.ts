import { commonFields, loadConfig, mysqlFields, optionalUrl, port, secretKey, z } from '@platform/config';

export const gatewayConfigSchema = z.object({
  ...commonFields,
  ...mysqlFields,
  HOST: z.string().default('127.0.0.1'),
  PORT: port(8080),
  /** Admin API bearer token; required in production, `dev-admin-token` (with a warning) elsewhere. */
  ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  INTERNAL_AUTH_KEY: secretKey.optional(),
  /** Base of the absolute URLs the API returns (pagination links); defaults to the request's host. */
  PUBLIC_BASE_URL: optionalUrl(['http', 'https']),
  /** Requests per minute each API key may make through one gateway process; 0 disables the limit. */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(6000),
  /** Port of the Prometheus /metrics listener, kept off the public port; unset disables it. */
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  CHANNELS_PLANS_ADDR: z.string().default('127.0.0.1:50051'),
  GRPC_DEADLINE_MS: z.coerce.number().int().min(100).max(120_000).default(5_000),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024),
  /** Set when a proxy or load balancer sits in front, so req.protocol/host honour X-Forwarded-*. */
  TRUST_PROXY: z.enum(['true', 'false']).default('false'),
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
