import { createLogger } from '@platform/logging';
import { jobAdmissionMigration, openOwnSchema, type Migration, type ServiceDatabase } from '@platform/mysql';
import { OUTBOX_MIGRATIONS } from '@platform/nats';
import { dropPrefixedSchemas } from './mysql-cleanup';
import { uniquePrefix } from './processes';

export interface TestSchema {
  prefix: string;
  db: ServiceDatabase;
  /** Closes the connections and drops the schema and its user. */
  close(): Promise<void>;
}

/**
 * A service's own schema under a prefix unique to one test run, migrated exactly as the service
 * migrates it on start (the outbox and job-admission migrations first): what a service's rule specs run against.
 */
export async function openTestSchema(options: { tag: string; base: string; migrations: readonly Migration[] }): Promise<TestSchema> {
  const prefix = uniquePrefix(options.tag);
  const db = await openOwnSchema({
    env: { MYSQL_URL: process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306', MYSQL_SCHEMA_PREFIX: prefix, NODE_ENV: 'test' },
    base: options.base,
    migrations: [...OUTBOX_MIGRATIONS, jobAdmissionMigration, ...options.migrations],
    logger: createLogger({ service: `${options.base}-test`, level: 'silent' }),
  });
  return {
    prefix,
    db,
    close: async () => {
      await db.close();
      await dropPrefixedSchemas(prefix);
    },
  };
}

/** Resolves with what a promise rejected with; fails the test if it resolved. */
export const rejectionOf = (promise: Promise<unknown>): Promise<Record<string, unknown>> =>
  promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: Record<string, unknown>) => error,
  );
