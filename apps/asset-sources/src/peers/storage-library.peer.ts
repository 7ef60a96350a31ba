import type { storageLibraryV1 } from '@contracts/proto';
import type { JobProgress } from '@platform/jobs';
import type { PromiseClient } from '@platform/grpc';
import type { LibraryChunkReader } from '../feeds/reading/library-transport';

/** What asset-sources asks storage-library, which owns the asset library, on behalf of the caller of the operation it serves. */
export interface StorageLibraryPeer {
  /** Which of the paths exist as files of the account's library (404 for an account outside the caller's scope, passed on). */
  libraryFiles(accountId: number, paths: string[]): Promise<ReadonlySet<string>>;
  /** Puts the Queued state of a job this service accepted into the queue view now, rather than when its outbox event arrives. */
  recordQueued(event: JobProgress): Promise<void>;
  /** A chunk of a library file, for a feed named by fileId. */
  readLibraryFile: LibraryChunkReader;
}

export function storageLibraryPeer(client: PromiseClient<storageLibraryV1.StorageLibraryServiceClient>): StorageLibraryPeer {
  return {
    async libraryFiles(accountId, paths) {
      const { files } = await client.findLibraryFiles({ accountId, paths });
      return new Set(files.map((file) => file.path));
    },
    async recordQueued(event) {
      const { accountId, queueId, kind, message, sequence, occurredAt } = event;
      await client.recordQueuedJob({ accountId, queueId, kind, message, sequence, occurredAt });
    },
    readLibraryFile: (accountId, path, offset, length) => client.readLibraryFile({ accountId, path, offset, length }),
  };
}
