import { storageLibraryV1 as v1 } from '@contracts/proto';
import { JOB_PROGRESS_STREAM, JOB_REQUEST_STREAM } from '@platform/jobs';
import { DEAD_LETTER_STREAM } from '@platform/nats';
import { parseAllowlist } from '@platform/outbound-fetch';
import { objectStoreFromConfig } from '@platform/s3';
import { secretBoxFromConfig } from '@platform/secrets';
import type { GrpcServiceSpec } from '@platform/service';
import { STORAGE_LIBRARY_MIGRATIONS } from './migrations';
import { startAuditLogConsumer } from './audit/audit-log.consumer';
import { startQueueViewConsumer } from './queues/queue-view.consumer';
import { storageLibraryConfigSchema, type StorageLibraryConfig } from './storage-library.config';
import { storageLibraryGrpc } from './storage-library.grpc';
import { createStorageLibraryServices } from './storage-library.services';

/** What is particular to storage-library; @platform/service runs it like every other service. */
export const storageLibraryService: GrpcServiceSpec<StorageLibraryConfig, v1.StorageLibraryServiceServer> = {
  name: 'storage-library',
  configSchema: storageLibraryConfigSchema,
  database: { base: 'storage_library', migrations: STORAGE_LIBRARY_MIGRATIONS },
  // Job requests go out through the outbox; progress comes back on the progress stream.
  streams: [JOB_REQUEST_STREAM, JOB_PROGRESS_STREAM, DEAD_LETTER_STREAM],
  // The bucket is made when the object store answers; a store that is down only fails the library's
  // own operations (cloud services and queues keep working), so it does not stop the service starting.
  seed: async ({ config, logger }) => {
    try {
      await objectStoreFromConfig(config).ensureBucket();
    } catch (error) {
      logger.warn({ err: error, endpoint: config.S3_ENDPOINT }, 'object store unreachable at start; the asset library fails until it answers');
    }
  },
  definition: v1.StorageLibraryServiceService,
  implementation: ({ config, logger, guard, db, events, nats, names, runInBackground }) => {
    const services = createStorageLibraryServices({
      db,
      events,
      store: objectStoreFromConfig(config),
      box: secretBoxFromConfig(config, (m) => logger.warn(m)),
      allowlist: parseAllowlist(config.OUTBOUND_ALLOWLIST),
    });
    // Queues would silently stop moving without it, so a consumer that cannot start fails the start-up.
    runInBackground('queue view', () => startQueueViewConsumer({ nats, names, logger, queues: services.queues }));
    // The trail of every service's changes; an entry is readable once this has folded its event.
    runInBackground('audit log', () => startAuditLogConsumer({ nats, names, logger, auditLog: services.auditLog }));
    return storageLibraryGrpc({ logger, guard, ...services });
  },
};
