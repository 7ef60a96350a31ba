import knexFactory, { type Knex } from 'knex';
import { createPool, type FieldPacket, type Pool, type PoolOptions, type ResultSetHeader, type RowDataPacket } from 'mysql2/promise';
import type { Logger } from '@platform/logging';
import { escape, escapeId, type Connection } from 'mysql2';
import { serviceConnectionConfig, setSessionTimeZoneToUtc, type ServiceConnectionConfig } from './mysql.connection';
import { createMigrationSource, type Migration } from './mysql.migration-source';
import { tracedStatement, traceKnexQueries } from './mysql.query-spans';
import { provisionSchemaAndUser } from './mysql.provisioning';
import { createRowLoader, type BulkValue, type LoadDataRows } from './mysql.load-rows';

export interface OpenServiceDatabaseOptions {
  /** Admin connection (MYSQL_URL): creates the schema and user, then is closed. */
  adminUrl: string;
  schema: string;
  user: string;
  password: string;
  migrations: readonly Migration[];
  /**
   * `apply` (default): create the schema and user, set the password, run pending migrations.
   * `require-current`: connect as the service user only, and fail with SchemaNotCurrentError while
   * a migration is pending (the release's migration run applies them, once).
   */
  migrate?: 'apply' | 'require-current';
  logger: Logger;
  pool?: { min: number; max: number };
  /** Connections of the prepared-statement pool behind `execute`. */
  executePool?: { max: number };
}

/** What a write through `write` reports. */
export interface WriteResult {
  affectedRows: number;
  insertId: number;
}

/** What a bound parameter of `execute` may be. */
export type SqlValue = string | number | boolean | Date | Buffer | null;

export interface ServiceDatabase {
  /** A pool connected as the service's own user, on its own schema. */
  knex: Knex;
  schema: string;
  /**
   * Runs one statement as a server-side prepared statement and returns its rows. For hot read
   * paths: pass a constant SQL string with `?` placeholders; each pooled connection prepares it
   * once and afterwards sends only the parameters, so nothing is built, escaped or parsed per call.
   * Same connection settings as `knex` (UTC, booleans, jsonStrings, big numbers).
   */
  execute<Row>(sql: string, params?: readonly SqlValue[]): Promise<Row[]>;
  /**
   * `execute` for a write on a hot path (a counter, a claim): one prepared statement, answering
   * how many rows it changed and the insert id (or the value a statement gave `LAST_INSERT_ID(expr)`).
   */
  write(sql: string, params?: readonly SqlValue[]): Promise<WriteResult>;
  /**
   * One multi-row INSERT of many rows, for bulk writes (a feed's rows, thousands per statement): the
   * values are escaped into the statement's text once, which is sent as is: no placeholder scan over
   * megabytes of text, no prepared statement for a statement run once. Traced as its head with one
   * placeholder row, so no value reaches a trace. Answers the rows inserted.
   */
  insertRows(table: string, columns: readonly string[], rows: readonly (readonly BulkValue[])[]): Promise<number>;
  /**
   * The same rows through LOAD DATA LOCAL INFILE, all or none (see createRowLoader): for the largest
   * bulk writes (a feed's rows, tens of thousands per call), where building and parsing an INSERT's
   * text is the cost. Answers the rows loaded.
   */
  loadRows(table: string, columns: readonly string[], rows: LoadDataRows | readonly (readonly BulkValue[])[]): Promise<number>;
  /** Resolves when the database answers; for readiness checks. */
  ping(): Promise<void>;
  /** Ends both pools; waits for queries in flight. */
  close(): Promise<void>;
}

/**
 * min 0: idle connections are released rather than kept until the server's wait_timeout kills them
 * and the first query after a quiet night fails.
 */
const DEFAULT_POOL = { min: 0, max: 10 };

const DEFAULT_EXECUTE_POOL = { max: 8 };

/**
 * Prepared statements each connection keeps (least recently used are closed). The hot paths use a
 * handful of constant strings; the bound keeps a caller that builds SQL per call from piling up
 * statements towards the server-wide max_prepared_stmt_count, which every service shares.
 */
const MAX_PREPARED_STATEMENTS_PER_CONNECTION = 64;

/** knex returns `[batchNumber, names]` from its migrate calls but types them as any. */
type MigrationRun = [number, string[]];

/** Where knex records applied migrations (its default name). */
const MIGRATIONS_TABLE = 'knex_migrations';

/**
 * This build's migrations the schema has not applied. Unlike knex's own list, a schema that has
 * migrations this build does not know (a rollback to the previous build) is not an error.
 */
async function pendingMigrations(knex: Knex, migrations: readonly Migration[]): Promise<string[]> {
  const applied = (await knex.schema.hasTable(MIGRATIONS_TABLE)) ? await knex<{ name: string }>(MIGRATIONS_TABLE).select('name') : [];
  const names = new Set(applied.map((row) => row.name));
  return migrations.map((migration) => migration.name).filter((name) => !names.has(name));
}

/** A replica that must not migrate found migrations of its build not applied yet. */
export class SchemaNotCurrentError extends Error {
  constructor(
    readonly schema: string,
    readonly pending: readonly string[],
  ) {
    super(
      `Schema ${schema} lacks ${pending.length} migration(s) of this build (${pending.join(', ')}): run the release's migrations first (SCHEMA_MIGRATIONS=only)`,
    );
    this.name = 'SchemaNotCurrentError';
  }
}

/**
 * Brings a service's database to the state its code expects: schema and user exist, the user's
 * password is current, migrations are applied. Returns a pool that can touch that schema only.
 */
export async function openServiceDatabase(options: OpenServiceDatabaseOptions): Promise<ServiceDatabase> {
  const { adminUrl, schema, user, password, migrations, migrate = 'apply', pool = DEFAULT_POOL } = options;
  const logger = options.logger.child({ component: 'mysql', schema });
  const startedAt = Date.now();

  if (migrate === 'apply') {
    await provisionSchemaAndUser({ adminUrl, schema, user, password });
    logger.info({ user, ms: Date.now() - startedAt }, 'schema and service user ready');
  }

  const connection = serviceConnectionConfig({ adminUrl, schema, user, password });
  const knex = knexFactory({
    client: 'mysql2',
    connection,
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
    if (migrate === 'apply') {
      const migrateStartedAt = Date.now();
      const [batch, applied] = (await knex.migrate.latest()) as MigrationRun;
      logger.info({ batch, applied, ms: Date.now() - migrateStartedAt }, applied.length > 0 ? 'migrations applied' : 'schema already up to date');
    } else {
      const pending = await pendingMigrations(knex, migrations);
      if (pending.length > 0) throw new SchemaNotCurrentError(schema, pending);
      logger.info('schema is current; this replica migrates nothing');
    }
  } catch (error) {
    await knex.destroy();
    throw error;
  }

  traceKnexQueries(knex, schema);
  const statements = createStatementPool(connection, options.executePool ?? DEFAULT_EXECUTE_POOL, logger);
  const insertRows = async (table: string, columns: readonly string[], rows: readonly (readonly BulkValue[])[]) => {
    if (rows.length === 0) return 0;
    const head = `INSERT INTO ${escapeId(table)} (${columns.map((c) => escapeId(c)).join(', ')}) VALUES `;
    const tuples = rows.map((row) => `(${row.map(bulkLiteral).join(',')})`);
    const [result] = await tracedStatement(schema, `${head}(${columns.map(() => '?').join(', ')}), ...`, () =>
      statements.query<ResultSetHeader>(head + tuples.join(',')),
    );
    return result.affectedRows;
  };
  const loadRows = createRowLoader(statements, insertRows, logger);
  return {
    knex,
    schema,
    execute: async <Row>(sql: string, params: readonly SqlValue[] = []) => {
      const [rows, fields] = await tracedStatement(schema, sql, () => statements.execute<RowDataPacket[]>(sql, params as SqlValue[]));
      castBooleanColumns(rows, fields);
      return rows as unknown as Row[];
    },
    write: async (sql: string, params: readonly SqlValue[] = []) => {
      const [result] = await statements.execute<ResultSetHeader>(sql, params as SqlValue[]);
      return { affectedRows: result.affectedRows, insertId: Number(result.insertId) };
    },
    insertRows,
    loadRows: (table, columns, rows) =>
      tracedStatement(schema, `LOAD DATA LOCAL INFILE INTO ${escapeId(table)} (${columns.map((c) => escapeId(c)).join(', ')})`, () =>
        loadRows(table, columns, rows),
      ),
    ping: async () => {
      await knex.raw('SELECT 1');
    },
    close: async () => {
      await Promise.all([knex.destroy(), statements.end()]);
    },
  };
}

/** A value as SQL text: NULL, a finite number as is, a string quoted and escaped. */
function bulkLiteral(value: BulkValue): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`insertRows: ${value} is not a number SQL can store.`);
    return String(value);
  }
  return escape(value);
}

/** MySQL's TINY code in column definitions; TINYINT(1) is how knex stores a boolean. */
const TINY_COLUMN_TYPE = 1;

/** TINYINT(1) columns become booleans, as they do through knex (see castTinyIntOneToBoolean). */
function castBooleanColumns(rows: RowDataPacket[], fields: FieldPacket[]): void {
  const names = fields.filter((f) => f.columnType === TINY_COLUMN_TYPE && f.columnLength === 1).map((f) => f.name);
  if (names.length === 0) return;
  for (const row of rows) {
    for (const name of names) if (row[name] !== null) row[name] = row[name] !== 0;
  }
}

/**
 * A plain mysql2 pool beside knex's, for `execute`: knex has no prepared statements, and its
 * builder compiles SQL on every call. Idle connections are kept (maxIdle = max) because a
 * connection carries its prepared statements; one the server closes (wait_timeout, restart) is
 * dropped from the pool by mysql2 when it ends, so the next call opens a fresh one.
 */
function createStatementPool(connection: ServiceConnectionConfig, { max }: { max: number }, logger: Logger): Pool {
  const pool = createPool({
    // The very object knex connects with; knex's copy of mysql2's option types has drifted (e.g.
    // `flags`) in fields this config does not set, hence the cast.
    ...(connection as unknown as PoolOptions),
    // mysql2's binary-protocol parser builds an accessor object per field per row for a typeCast
    // function, which made it the hottest code of a list read; booleans are cast per query instead.
    typeCast: true,
    connectionLimit: max,
    maxIdle: max,
    maxPreparedStatements: MAX_PREPARED_STATEMENTS_PER_CONNECTION,
  });
  // mysql2 runs a connection's commands in order, so this runs before the statement that made it.
  pool.pool.on('connection', (created: Connection) =>
    setSessionTimeZoneToUtc(created, (error) => {
      if (!error) return;
      logger.error({ err: error }, 'could not set the session time zone; dropping the connection');
      created.destroy();
    }),
  );
  return pool;
}

/**
 * Undoes the most recently applied migration, or every applied migration with `all`.
 * Returns the names undone, newest first.
 */
export async function migrateDown(db: ServiceDatabase, { all = false }: { all?: boolean } = {}): Promise<string[]> {
  const [, undone] = (all ? await db.knex.migrate.rollback(undefined, true) : await db.knex.migrate.down()) as MigrationRun;
  return undone;
}
