import type { Knex } from 'knex';
import type { Connection, QueryError } from 'mysql2';

/** The part of mysql2's type-cast field this module reads (mysql2 does not export the type). */
interface CastField {
  type: string;
  length: number;
  string(): string | null;
}

/**
 * knex stores booleans as TINYINT(1); without this they come back as 0/1 and `=== true` silently
 * fails. Other TINYINT widths are real numbers and pass through.
 */
export function castTinyIntOneToBoolean(field: CastField, next: () => unknown): unknown {
  if (field.type === 'TINY' && field.length === 1) {
    const text = field.string();
    return text === null ? null : text !== '0';
  }
  return next();
}

export interface ServiceConnectionTarget {
  /** Host and port are taken from the admin URL; its credentials are not. */
  adminUrl: string;
  schema: string;
  user: string;
  password: string;
}

/** knex's connection type predates mysql2's jsonStrings option, which the driver does honour. */
export type ServiceConnectionConfig = Knex.MySql2ConnectionConfig & { jsonStrings: boolean };

export function serviceConnectionConfig({ adminUrl, schema, user, password }: ServiceConnectionTarget): ServiceConnectionConfig {
  const url = new URL(adminUrl);
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : 3306,
    user,
    password,
    database: schema,
    // No `charset`: knex would copy it into every CREATE TABLE, overriding the schema's collation.
    // mysql2's default connection collation is already utf8mb4_unicode_ci, the schema's own.
    // All times are UTC end to end: mysql2 reads and writes DATETIME as UTC (timezone 'Z') and the
    // session time zone below makes TIMESTAMP columns and NOW() agree with it.
    timezone: 'Z',
    dateStrings: false,
    // BIGINT ids beyond 2^53 come back as exact strings instead of rounded numbers.
    supportBigNumbers: true,
    // JSON columns come back as their text: a repository that only passes JSON on (to gRPC, to a
    // response) should not pay a parse and a re-stringify per row; one that needs the value parses it.
    jsonStrings: true,
    typeCast: castTinyIntOneToBoolean,
  };
}

/** Pool hook: runs on every new connection before knex hands it out. */
export function setSessionTimeZoneToUtc(connection: Connection, done: (error: QueryError | null, connection: Connection) => void): void {
  connection.query("SET time_zone = '+00:00'", (error: QueryError | null) => done(error, connection));
}
