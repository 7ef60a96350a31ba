import { z } from 'zod';

/** Reusable environment fields; every process composes the ones it needs. */
export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

const urlString = (protocols: string[]) =>
  z.string().refine(
    (value) => {
      try {
        return protocols.includes(new URL(value).protocol.replace(':', ''));
      } catch {
        return false;
      }
    },
    `must be a URL with protocol ${protocols.join(' or ')}`,
  );

export const url = (fallback: string, protocols: string[]) => urlString(protocols).default(fallback);

/** A URL that stays undefined when unset (no default). */
export const optionalUrl = (protocols: string[]) => urlString(protocols).optional();

export const booleanFlag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', ''])
    .default(fallback ? 'true' : 'false')
    .transform((value) => value === 'true' || value === '1');

/**
 * Durations in ms as a comma-separated list (`60000,300000`; empty for none): a retry schedule, one
 * entry a retry. Each a whole number from `min` to `max`, at most `maxEntries` of them.
 */
export const msList = (fallback: string, { min, max, maxEntries }: { min: number; max: number; maxEntries: number }) =>
  z
    .string()
    .default(fallback)
    .transform((value) => (value.trim() === '' ? [] : value.split(',').map((entry) => Number(entry.trim()))))
    .refine((values) => values.length <= maxEntries, `must list at most ${maxEntries} durations`)
    .refine(
      (values) => values.every((ms) => Number.isInteger(ms) && ms >= min && ms <= max),
      `must be whole numbers of ms from ${min} to ${max}, separated by commas`,
    );

export const nodeEnv = z.enum(['development', 'test', 'production']).default('development');

export const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');

/** A 32-byte key given as 64 hex characters or base64; used for AES-256-GCM and HMAC. */
export const secretKey = z
  .string()
  .refine((value) => decodeKey(value) !== null, 'must be 32 bytes as 64 hex characters or base64')
  .transform((value) => decodeKey(value) as Buffer);

function decodeKey(value: string): Buffer | null {
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  const b64 = Buffer.from(value, 'base64');
  return b64.length === 32 ? b64 : null;
}

/** Fields every process shares. */
export const commonFields = {
  NODE_ENV: nodeEnv,
  LOG_LEVEL: logLevel,
  /** Time between turning not-ready and draining, so load balancers stop sending first. */
  SHUTDOWN_DRAIN_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(0),
  /** Hard cap on a graceful shutdown; past it the process exits with code 1. */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(300_000).default(25_000),
  /** An OpenTelemetry collector's OTLP/HTTP base URL: spans go to `<it>/v1/traces`. Unset: no tracing. */
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl(['http', 'https']),
};

export const mysqlFields = {
  /** Admin connection used only to create the service's schema and user on start. */
  MYSQL_URL: url('mysql://root@127.0.0.1:3306', ['mysql']),
  /** Password for the per-service DB user; outside production a derived default is used. */
  MYSQL_SERVICE_PASSWORD: z.string().min(12).optional(),
  /** Prefix for schema and user names, so parallel test runs never share a schema. */
  MYSQL_SCHEMA_PREFIX: z
    .string()
    .regex(/^[a-z0-9_]*$/, 'lowercase letters, digits and _ only')
    .default(''),
  /**
   * What a start does with the schema. `apply`: creates the schema and user and migrates, then
   * serves (local runs, tests). `only`: the same, then the process exits 0 without serving (a
   * release's migration Job). `require-current`: changes nothing and refuses to start while a
   * migration of this build is not applied (cluster replicas: a release migrates once, not once per replica).
   */
  SCHEMA_MIGRATIONS: z.enum(['apply', 'only', 'require-current']).default('apply'),
};

export const natsFields = {
  NATS_URL: url('nats://127.0.0.1:4222', ['nats', 'tls']),
  /** Prefix for stream and subject names, so parallel test runs never share a stream. */
  NATS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_]*$/, 'letters, digits and _ only')
    .default(''),
};

export const s3Fields = {
  S3_ENDPOINT: url('http://127.0.0.1:9000', ['http', 'https']),
  S3_ACCESS_KEY: z.string().default('S3RVER'),
  S3_SECRET_KEY: z.string().default('S3RVER'),
  S3_BUCKET: z.string().default('retail-media'),
  S3_REGION: z.string().default('us-east-1'),
};

export { z };
