import knexFactory, { type Knex } from 'knex';
import type { Logger } from '@platform/logging';
import { serviceConnectionConfig, setSessionTimeZoneToUtc } from './mysql.connection';
import { createMigrationSource, type Migration } from './mysql.migration-source';
import { provisionSchemaAndUser } from './mysql.provisioning';

export interface OpenServiceDatabaseOptions {
  /** Admin connection (MYSQL_URL): creates the schema and user, then is closed. */
  adminUrl: string;
  schema: string;
  user: string;
  password: string;
  migrations: readonly Migration[];
  logger: Logger;
  pool?: { min: number; max: number };
}

export interface ServiceDatabase {
  /** A pool connected as the service's own user, on its own schema. */
  knex: Knex;
  schema: string;
  /** Resolves when the database answers; for readiness checks. */
  ping(): Promise<void>;
  /** Ends the pool; waits for queries in flight. */
  close(): Promise<void>;
}

/**
 * min 0: idle connections are released rather than kept until the server's wait_timeout kills them
 * and the first query after a quiet night fails.
 */
const DEFAULT_POOL = { min: 0, max: 10 };

/** knex returns `[batchNumber, names]` from its migrate calls but types them as any. */
type MigrationRun = [number, string[]];

/**
 * Brings a service's database to the state its code expects: schema and user exist, the user's
 * password is current, migrations are applied. Returns a pool that can touch that schema only.
 */
export async function openServiceDatabase(options: OpenServiceDatabaseOptions): Promise<ServiceDatabase> {
  const { adminUrl, schema, user, password, migrations, pool = DEFAULT_POOL } = options;
  const logger = options.logger.child({ component: 'mysql', schema });
  const startedAt = Date.now();

  await provisionSchemaAndUser({ adminUrl, schema, user, password });
  logger.info({ user, ms: Date.now() - startedAt }, 'schema and service user ready');

  const knex = knexFactory({
    client: 'mysql2',
    connection: serviceConnectionConfig({ adminUrl, schema, user, password }),
    pool: { ...pool, afterCreate: setSessionTimeZoneToUtc },
    // knex writes its warnings (failed migrations among them) to the console unless told otherwise.
    log: {
      warn: (message: unknown) => logger.warn(String(message)),
      error: (message: unknown) => logger.error(String(message)),
      deprecate: (method: string, alternative: string) => logger.warn({ method, alternative }, 'knex deprecation'),
      debug: (message: unknown) => logger.debug({ knex: message }, 'knex debug'),
    },
    // Knowing the source here lets migrateDown and knex's own migrate calls work without arguments.
    migrations: { migrationSource: createMigrationSource(migrations) },
  });

  try {
    const migrateStartedAt = Date.now();
    const [batch, applied] = (await knex.migrate.latest()) as MigrationRun;
    logger.info(
      { batch, applied, ms: Date.now() - migrateStartedAt },
      applied.length > 0 ? 'migrations applied' : 'schema already up to date',
    );
  } catch (error) {
    await knex.destroy();
    throw error;
  }

  return {
    knex,
    schema,
    ping: async () => {
      await knex.raw('SELECT 1');
    },
    close: () => knex.destroy(),
  };
}

/**
 * Undoes the most recently applied migration, or every applied migration with `all`.
 * Returns the names undone, newest first.
 */
export async function migrateDown(db: ServiceDatabase, { all = false }: { all?: boolean } = {}): Promise<string[]> {
  const [, undone] = (all ? await db.knex.migrate.rollback(undefined, true) : await db.knex.migrate.down()) as MigrationRun;
  return undone;
}
