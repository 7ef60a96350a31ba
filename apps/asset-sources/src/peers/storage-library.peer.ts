import type { storageLibraryV1 } from '@contracts/proto';
import type { PromiseClient } from '@platform/grpc';

/** What asset-sources asks storage-library, which owns the asset library, on behalf of the caller of the operation it serves. */
export interface StorageLibraryPeer {
  /** Which of the paths exist as files of the account's library (404 for an account outside the caller's scope, passed on). */
  libraryFiles(accountId: number, paths: string[]): Promise<ReadonlySet<string>>;
}

export function storageLibraryPeer(client: PromiseClient<storageLibraryV1.StorageLibraryServiceClient>): StorageLibraryPeer {
  return {
    async libraryFiles(accountId, paths) {
      const { files } = await client.findLibraryFiles({ accountId, paths });
      return new Set(files.map((file) => file.path));
    },
  };
}
