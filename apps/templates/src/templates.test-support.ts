import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CachedViewChange } from '@contracts/domain';
import type { ServiceDatabase } from '@platform/mysql';
import { createObjectStore, startEmbeddedS3, type ObjectStore } from '@platform/s3';
import { naming } from '@platform/nats';
import { actingAs, createEventOutbox, TEST_PRINCIPAL } from '@platform/service';
import { openTestSchema, rejectionOf } from '@platform/testing';
import { createTemplatesServices, type TemplatesServices } from './templates.services';
import { TEMPLATES_MIGRATIONS } from './migrations';

export interface TemplatesTestBed extends TemplatesServices {
  prefix: string;
  /** Every cached-view notice the services announced, in order. */
  viewChanges: CachedViewChange[];
  db: ServiceDatabase;
  /** The bucket thumbnails are stored in (an embedded S3 server of the bed's own). */
  store: ObjectStore;
  close(): Promise<void>;
}

/**
 * The services of templates on a schema of their own (migrated like the real one, catalog seeded and
 * its thumbnails drawn) and an embedded S3 server, without gRPC or NATS: specs of the rules call the
 * services directly.
 */
export async function openTemplatesTestBed(tag: string): Promise<TemplatesTestBed> {
  const { prefix, db, close } = await openTestSchema({ tag, base: 'templates', migrations: TEMPLATES_MIGRATIONS });
  const dir = await mkdtemp(join(tmpdir(), 'templates-'));
  const s3 = await startEmbeddedS3({ port: 0, directory: dir });
  const store = createObjectStore({ endpoint: s3.endpoint, accessKey: 'S3RVER', secretKey: 'S3RVER', bucket: 'templates-test', region: 'us-east-1' });
  const viewChanges: CachedViewChange[] = [];
  // Called as a key of the test org would call them, so their writes enter the audit trail.
  const services = actingAs(
    createTemplatesServices({
      db,
      store,
      announceViewChange: async (change) => {
        viewChanges.push(change);
        return true;
      },
      events: createEventOutbox(naming(prefix)),
    }),
    TEST_PRINCIPAL,
  );
  await services.templates.seedCatalog();
  await services.templates.assignThumbnailKeys();
  await services.templates.drawMissingThumbnails();
  return {
    ...services,
    prefix,
    viewChanges,
    db,
    store,
    close: async () => {
      await close();
      await s3.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export { rejectionOf };
