import { storageLibraryV1 as v1 } from '@contracts/proto';
import { JOB_PROGRESS_STREAM, JOB_REQUEST_STREAM } from '@platform/jobs';
import { DEAD_LETTER_STREAM } from '@platform/nats';
import { createOutboundFetch, parseAllowlist } from '@platform/outbound-fetch';
import { objectStoreFromConfig } from '@platform/s3';
import { secretBoxFromConfig } from '@platform/secrets';
import { startPeriodicTask, type GrpcServiceSpec } from '@platform/service';
import { STORAGE_LIBRARY_MIGRATIONS } from './migrations';
import { startAuditLogConsumer } from './audit/audit-log.consumer';
import { startQueueViewConsumer } from './queues/queue-view.consumer';
import { storageLibraryConfigSchema, type StorageLibraryConfig } from './storage-library.config';
import { storageLibraryGrpc } from './storage-library.grpc';
import { createStorageLibraryServices } from './storage-library.services';
import { WebhookDispatcher } from './webhooks/webhook-delivery';

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
    const box = secretBoxFromConfig(config, (m) => logger.warn(m));
    const allowlist = parseAllowlist(config.OUTBOUND_ALLOWLIST);
    const services = createStorageLibraryServices({ db, events, store: objectStoreFromConfig(config), box, allowlist });
    // Queues would silently stop moving without it, so a consumer that cannot start fails the start-up.
    runInBackground('queue view', () => startQueueViewConsumer({ nats, names, logger, queues: services.queues }));
    // The trail of every service's changes; an entry is readable once this has folded its event.
    runInBackground('audit log', () => startAuditLogConsumer({ nats, names, logger, auditLog: services.auditLog }));
    if (config.WEBHOOK_POLL_INTERVAL_MS > 0) {
      // Deliveries are rows written with the status changes; every replica sends what is due, each row claimed by one.
      const dispatcher = new WebhookDispatcher(
        db.knex,
        services.webhookRepository,
        box,
        createOutboundFetch({ allowlist }),
        {
          timeoutMs: config.WEBHOOK_TIMEOUT_MS,
          retryInitialMs: config.WEBHOOK_RETRY_INITIAL_MS,
          retryMaxMs: config.WEBHOOK_RETRY_MAX_MS,
          maxAttempts: config.WEBHOOK_MAX_ATTEMPTS,
          perRun: 50,
        },
        logger.child({ component: 'webhook-delivery' }),
      );
      runInBackground('webhook deliveries', async () => {
        const task = startPeriodicTask({
          intervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
          run: () => dispatcher.runOnce(),
          onError: (error) => logger.warn({ err: error }, 'webhook delivery run failed'),
        });
        return {
          stop: async () => {
            dispatcher.stop();
            await task.stop();
          },
        };
      });
    }
    return storageLibraryGrpc({ logger, guard, ...services });
  },
};
