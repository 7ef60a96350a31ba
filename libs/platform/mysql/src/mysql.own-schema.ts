import type { Logger } from '@platform/logging';
import { schemaName } from './mysql.identifiers';
import type { Migration } from './mysql.migration-source';
import { openServiceDatabase, type ServiceDatabase } from './mysql.service-database';
import { servicePassword } from './mysql.service-password';

/** The MySQL part of a process's validated config (see mysqlFields in @platform/config). */
export interface MysqlEnv {
  MYSQL_URL: string;
  MYSQL_SCHEMA_PREFIX: string;
  MYSQL_SERVICE_PASSWORD?: string;
  NODE_ENV: string;
  /** `apply` when absent; `only` migrates as `apply` does (the caller then exits). */
  SCHEMA_MIGRATIONS?: 'apply' | 'only' | 'require-current';
}

/**
 * Opens the one schema a process owns, named `<prefix><base>`, with a DB user of the same name:
 * the convention every service follows, so none of them spells it out again.
 */
export function openOwnSchema(options: { env: MysqlEnv; base: string; migrations: readonly Migration[]; logger: Logger }): Promise<ServiceDatabase> {
  const { env, base, migrations, logger } = options;
  const schema = schemaName(env.MYSQL_SCHEMA_PREFIX, base);
  return openServiceDatabase({
    adminUrl: env.MYSQL_URL,
    schema,
    user: schema,
    password: servicePassword({ explicit: env.MYSQL_SERVICE_PASSWORD, nodeEnv: env.NODE_ENV, schema }),
    migrations,
    migrate: env.SCHEMA_MIGRATIONS === 'require-current' ? 'require-current' : 'apply',
    logger,
  });
}

/**
 * For SCHEMA_MIGRATIONS=only (a release's migration run): brings the schema to this build's latest
 * migration and closes the connections; the process then exits instead of serving.
 */
export async function migrateOwnSchema(options: { env: MysqlEnv; base: string; migrations: readonly Migration[]; logger: Logger }): Promise<void> {
  const db = await openOwnSchema({ ...options, env: { ...options.env, SCHEMA_MIGRATIONS: 'apply' } });
  await db.close();
}
