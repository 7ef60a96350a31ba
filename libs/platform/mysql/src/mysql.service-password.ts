import { createHash } from 'node:crypto';

export interface ServicePasswordOptions {
  /** MYSQL_SERVICE_PASSWORD, when set. */
  explicit?: string;
  /** NODE_ENV. */
  nodeEnv: string;
  /** The service's schema; the derived development password depends on it alone. */
  schema: string;
}

/**
 * The password of a service's DB user. Production must be given one, because a derivable password
 * is no secret. Elsewhere a password derived from the schema name lets `npm start` and the tests
 * agree on credentials across restarts without any setup.
 */
export function servicePassword({ explicit, nodeEnv, schema }: ServicePasswordOptions): string {
  if (explicit) return explicit;
  if (nodeEnv === 'production') {
    throw new Error(`MYSQL_SERVICE_PASSWORD is required in production (schema ${schema})`);
  }
  const digest = createHash('sha256').update(`retail-media-dev-password:${schema}`).digest('hex');
  return `dev_${digest.slice(0, 32)}`;
}
