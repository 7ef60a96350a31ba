import { randomBytes } from 'node:crypto';
import type { ServiceDatabase } from '@platform/mysql';
import { naming, OUTBOX_TABLE } from '@platform/nats';
import { createSecretBox, type SecretBox } from '@platform/secrets';
import { AUDIT_CHANGE_SUBJECT, type AuditChangeEvent, type CachedViewChange } from '@contracts/domain';
import { actingAs, createEventOutbox, TEST_PRINCIPAL } from '@platform/service';
import { openTestSchema, rejectionOf } from '@platform/testing';
import { createChannelsPlansServices, type ChannelsPlansServices } from './channels-plans.services';
import { CHANNELS_PLANS_MIGRATIONS } from './migrations';

export const TEST_ONSITE_API_BASE_URL = 'https://onsite.test/api/';

export interface ChannelsPlansTestBed extends ChannelsPlansServices {
  prefix: string;
  db: ServiceDatabase;
  secrets: SecretBox;
  /** Cached-view changes announced so far, in order (the gRPC service broadcasts them over NATS). */
  viewChanges: CachedViewChange[];
  /** When set, each announcement awaits it, as the service awaits the NATS broadcast before answering. */
  onViewChange?: (change: CachedViewChange) => Promise<void>;
  /** Outbox rows recorded so far but the audit trail's, subjects without the test's NATS prefix. */
  outbox(): Promise<{ subject: string; payload: Record<string, unknown> }[]>;
  /** The audit events recorded so far, in order. */
  auditTrail(): Promise<AuditChangeEvent[]>;
  close(): Promise<void>;
}

/**
 * The services of channels-plans on a schema of their own (migrated like the real one, catalogs
 * seeded), without gRPC or NATS: specs of the rules call the services directly.
 */
export async function openChannelsPlansTestBed(tag: string): Promise<ChannelsPlansTestBed> {
  const { prefix, db, close } = await openTestSchema({ tag, base: 'channels_plans', migrations: CHANNELS_PLANS_MIGRATIONS });
  const secrets = createSecretBox(randomBytes(32));
  const viewChanges: CachedViewChange[] = [];
  // Called as a key of the test org would call them, so their writes enter the audit trail.
  const services = actingAs(
    createChannelsPlansServices({
      db,
      events: createEventOutbox(naming(prefix)),
      announceViewChange: async (change) => {
        viewChanges.push(change);
        // `bed` is declared below; the announcer runs only once a spec calls a service.
        await bed.onViewChange?.(change);
        return true;
      },
      secrets,
      onsiteApiBaseUrl: TEST_ONSITE_API_BASE_URL,
    }),
    TEST_PRINCIPAL,
  );
  await services.adServers.seedCatalog('http://cdn.test');
  await services.adUnits.seedCatalog();
  const bed: ChannelsPlansTestBed = {
    ...services,
    prefix,
    db,
    secrets,
    viewChanges,
    outbox: async () => {
      const rows: { subject: string; payload: Buffer }[] = await db.knex(OUTBOX_TABLE).select('subject', 'payload').orderBy('id');
      return rows
        .map((row) => ({ subject: row.subject.slice(prefix.length), payload: JSON.parse(row.payload.toString('utf8')) }))
        .filter((row) => row.subject !== AUDIT_CHANGE_SUBJECT);
    },
    auditTrail: async () => {
      const rows: { payload: Buffer }[] = await db
        .knex(OUTBOX_TABLE)
        .select('payload')
        .where({ subject: `${prefix}${AUDIT_CHANGE_SUBJECT}` })
        .orderBy('id');
      return rows.map((row) => JSON.parse(row.payload.toString('utf8')) as AuditChangeEvent);
    },
    close,
  };
  return bed;
}

export { rejectionOf };
