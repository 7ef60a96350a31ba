import { randomBytes } from 'node:crypto';
import { createLogger } from '@platform/logging';
import { openOwnSchema, type ServiceDatabase } from '@platform/mysql';
import { naming, outboxMigration, OUTBOX_TABLE } from '@platform/nats';
import { createSecretBox, type SecretBox } from '@platform/secrets';
import { createEventOutbox } from '@platform/service';
import { dropPrefixedSchemas, uniquePrefix } from '@platform/testing';
import { createChannelsPlansServices, type ChannelsPlansServices } from './channels-plans.services';
import { CHANNELS_PLANS_MIGRATIONS } from './migrations';

export const TEST_ONSITE_API_BASE_URL = 'https://onsite.test/api/';

export interface ChannelsPlansTestBed extends ChannelsPlansServices {
  prefix: string;
  db: ServiceDatabase;
  secrets: SecretBox;
  /** Outbox rows recorded so far, subjects without the test's NATS prefix. */
  outbox(): Promise<{ subject: string; payload: Record<string, unknown> }[]>;
  close(): Promise<void>;
}

/**
 * The services of channels-plans on a schema of their own (migrated like the real one, catalog
 * seeded), without gRPC or NATS: specs of the rules call the services directly.
 */
export async function openChannelsPlansTestBed(tag: string): Promise<ChannelsPlansTestBed> {
  const prefix = uniquePrefix(tag);
  const db = await openOwnSchema({
    env: { MYSQL_URL: process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306', MYSQL_SCHEMA_PREFIX: prefix, NODE_ENV: 'test' },
    base: 'channels_plans',
    migrations: [outboxMigration, ...CHANNELS_PLANS_MIGRATIONS],
    logger: createLogger({ service: 'channels-plans-test', level: 'silent' }),
  });
  const secrets = createSecretBox(randomBytes(32));
  const services = createChannelsPlansServices({ db, events: createEventOutbox(naming(prefix)), secrets, onsiteApiBaseUrl: TEST_ONSITE_API_BASE_URL });
  await services.adServers.seedCatalog('http://cdn.test');
  return {
    ...services,
    prefix,
    db,
    secrets,
    outbox: async () => {
      const rows: { subject: string; payload: Buffer }[] = await db.knex(OUTBOX_TABLE).select('subject', 'payload').orderBy('id');
      return rows.map((row) => ({ subject: row.subject.slice(prefix.length), payload: JSON.parse(row.payload.toString('utf8')) }));
    },
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
