import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServiceDatabase } from '@platform/mysql';
import { createObjectStore, startEmbeddedS3, type EmbeddedS3, type ObjectStore } from '@platform/s3';
import { createSecretBox, developmentKey } from '@platform/secrets';
import { actingAs, createEventOutbox, TEST_PRINCIPAL } from '@platform/service';
import { naming } from '@platform/nats';
import { openTestSchema, rejectionOf } from '@platform/testing';
import { createStorageLibraryServices, type StorageLibraryServices } from './storage-library.services';
import { STORAGE_LIBRARY_MIGRATIONS } from './migrations';

export interface StorageLibraryTestBed extends StorageLibraryServices {
  prefix: string;
  db: ServiceDatabase;
  s3: EmbeddedS3;
  store: ObjectStore;
  close(): Promise<void>;
}

/**
 * The services of storage-library on a schema of their own and an embedded S3 server (the library
 * bucket, and any bucket a test creates as a customer's), without gRPC or NATS: events land in the
 * outbox table, where specs read them.
 */
export async function openStorageLibraryTestBed(tag: string): Promise<StorageLibraryTestBed> {
  const { prefix, db, close } = await openTestSchema({ tag, base: 'storage_library', migrations: STORAGE_LIBRARY_MIGRATIONS });
  const dir = await mkdtemp(join(tmpdir(), 'storage-library-'));
  const s3 = await startEmbeddedS3({ port: 0, directory: dir });
  const store = createObjectStore({ endpoint: s3.endpoint, accessKey: 'S3RVER', secretKey: 'S3RVER', bucket: 'library', region: 'us-east-1' });
  await store.ensureBucket();
  const { host } = new URL(s3.endpoint);
  // Called as a key of the test org would call them, so their writes enter the audit trail.
  const services = actingAs(
    createStorageLibraryServices({
      db,
      events: createEventOutbox(naming(prefix.toUpperCase())),
      store,
      box: createSecretBox(developmentKey('storage-library-test')),
      allowlist: [host],
    }),
    TEST_PRINCIPAL,
  );
  return {
    ...services,
    prefix,
    db,
    s3,
    store,
    close: async () => {
      await close();
      await s3.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export { rejectionOf };
