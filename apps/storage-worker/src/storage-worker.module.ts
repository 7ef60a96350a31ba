import { JOB_PROGRESS_STREAM, JOB_REQUEST_STREAM } from '@platform/jobs';
import { DEAD_LETTER_STREAM } from '@platform/nats';
import { parseAllowlist } from '@platform/outbound-fetch';
import { objectStoreFromConfig } from '@platform/s3';
import { secretBoxFromConfig } from '@platform/secrets';
import type { WorkerSpec } from '@platform/service';
import { cloudCopyJob } from './cloud-copy/cloud-copy.job';
import { storageWorkerConfigSchema, type StorageWorkerConfig } from './storage-worker.config';
import { uploadJob } from './uploads/upload.job';

/** The storage worker: places and extracts uploads, copies from customers' buckets. */
export const storageWorker: WorkerSpec<StorageWorkerConfig> = {
  name: 'storage-worker',
  configSchema: storageWorkerConfigSchema,
  streams: [JOB_REQUEST_STREAM, JOB_PROGRESS_STREAM, DEAD_LETTER_STREAM],
  jobs: async ({ config, logger }) => {
    const store = objectStoreFromConfig(config);
    await store.ensureBucket();
    return [
      uploadJob({ store, tmpDir: config.STORAGE_WORKER_TMP_DIR }),
      cloudCopyJob({ store, box: secretBoxFromConfig(config, (m) => logger.warn(m)), allowlist: parseAllowlist(config.OUTBOUND_ALLOWLIST) }),
    ];
  },
};
