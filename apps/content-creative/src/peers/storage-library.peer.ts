import type { storageLibraryV1 } from '@contracts/proto';
import type { JobProgress } from '@platform/jobs';
import type { PromiseClient } from '@platform/grpc';

/** What content-creative asks storage-library, which keeps the queue view of every job. */
export interface StorageLibraryPeer {
  /** Puts the Queued state of an export this service accepted into the queue view now, rather than when its outbox event arrives. */
  recordQueued(event: JobProgress): Promise<void>;
}

export function storageLibraryPeer(client: PromiseClient<storageLibraryV1.StorageLibraryServiceClient>): StorageLibraryPeer {
  return {
    recordQueued: async ({ accountId, queueId, kind, message, sequence, occurredAt }) => {
      await client.recordQueuedJob({ accountId, queueId, kind, message, sequence, occurredAt });
    },
  };
}
