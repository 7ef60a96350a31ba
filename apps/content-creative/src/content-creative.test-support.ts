import type { CachedViewChange } from '@contracts/domain';
import { createLogger } from '@platform/logging';
import type { ServiceDatabase } from '@platform/mysql';
import { naming } from '@platform/nats';
import { actingAs, createEventOutbox, TEST_PRINCIPAL } from '@platform/service';
import { openTestSchema, rejectionOf } from '@platform/testing';
import { createContentCreativeServices, type ContentCreativeServices } from './content-creative.services';
import { CONTENT_CREATIVE_MIGRATIONS } from './migrations';

export interface ContentCreativeTestBed extends ContentCreativeServices {
  prefix: string;
  db: ServiceDatabase;
  /** Every cached-view change the services announced, in order. */
  viewChanges: CachedViewChange[];
  close(): Promise<void>;
}

/**
 * The services of content-creative on a schema of their own (migrated like the real one, catalog
 * seeded), without gRPC or NATS: specs of the rules call the services directly; events land in the outbox table.
 */
export async function openContentCreativeTestBed(tag: string): Promise<ContentCreativeTestBed> {
  const { prefix, db, close } = await openTestSchema({ tag, base: 'content_creative', migrations: CONTENT_CREATIVE_MIGRATIONS });
  const viewChanges: CachedViewChange[] = [];
  // Called as a key of the test org would call them, so their writes enter the audit trail.
  const services = actingAs(
    createContentCreativeServices({
      db,
      events: createEventOutbox(naming(prefix.toUpperCase())),
      announceViewChange: async (change) => {
        viewChanges.push(change);
        return true;
      },
      logger: createLogger({ service: 'content-creative-test', level: 'silent' }),
    }),
    TEST_PRINCIPAL,
  );
  await services.dataSignals.seedCatalog();
  return { ...services, prefix, db, viewChanges, close };
}

export { rejectionOf };
