import type { storageLibraryV1 } from '@contracts/proto';
import type { Metadata, PeerClient } from '@platform/grpc';
import type { LibraryFilesLookup } from './motion-design.service';

/**
 * storage-library owns the asset library: it answers, on behalf of the incoming caller, which of the
 * paths exist as files of the account (404 for an account outside the caller's scope, passed on).
 */
export const libraryFilesLookupFor =
  (storageLibrary: PeerClient<storageLibraryV1.StorageLibraryServiceClient>) =>
  (incoming: Metadata): LibraryFilesLookup =>
  async (accountId, paths) => {
    const { files } = await storageLibrary.as(incoming).findLibraryFiles({ accountId, paths });
    return new Set(files.map((file) => file.path));
  };
