import { createLogger } from '@platform/logging';
import { openOwnSchema, type ServiceDatabase } from '@platform/mysql';
import { outboxMigration } from '@platform/nats';
import { dropPrefixedSchemas, uniquePrefix } from '@platform/testing';
import { createTemplatesServices, type TemplatesServices } from './templates.services';
import { TEMPLATES_MIGRATIONS } from './migrations';

export interface TemplatesTestBed extends TemplatesServices {
  prefix: string;
  db: ServiceDatabase;
  close(): Promise<void>;
}

/**
 * The services of templates on a schema of their own (migrated like the real one, catalog seeded),
 * without gRPC or NATS: specs of the rules call the services directly.
 */
export async function openTemplatesTestBed(tag: string): Promise<TemplatesTestBed> {
  const prefix = uniquePrefix(tag);
  const db = await openOwnSchema({
    env: { MYSQL_URL: process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306', MYSQL_SCHEMA_PREFIX: prefix, NODE_ENV: 'test' },
    base: 'templates',
    migrations: [outboxMigration, ...TEMPLATES_MIGRATIONS],
    logger: createLogger({ service: 'templates-test', level: 'silent' }),
  });
  const services = createTemplatesServices({ db });
  await services.templates.seedCatalog();
  return {
    ...services,
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
