import { STORAGE_LIBRARY_ACCESS } from '@contracts/domain';
import { storageLibraryV1 as v1 } from '@contracts/proto';
import type { Logger } from '@platform/logging';
import { unaryHandlers, type CallGuard } from '@platform/service';
import type { AssetLibraryService } from './asset-library.service';

export function assetLibraryGrpc({
  logger,
  guard,
  assets,
}: {
  logger: Logger;
  guard: CallGuard;
  assets: AssetLibraryService;
}): Pick<v1.StorageLibraryServiceServer, 'listAssets' | 'startUpload' | 'deleteAssets' | 'findLibraryFiles' | 'readLibraryFile'> {
  return unaryHandlers(v1.StorageLibraryServiceService, STORAGE_LIBRARY_ACCESS, logger, {
    listAssets: async (request, call) => {
      guard.account(call, request.accountId);
      return assets.list(request.accountId, { prefix: request.prefix, limit: request.limit, nextKey: request.nextKey });
    },

    startUpload: async (request, call) => {
      guard.account(call, request.accountId);
      const queueId = await assets.startUpload(request.accountId, {
        stagingKey: request.stagingKey,
        path: request.path,
        fileName: request.fileName,
        sizeBytes: request.sizeBytes,
      });
      return { queueId };
    },

    deleteAssets: async (request, call) => {
      guard.account(call, request.accountId);
      return { msg: await assets.delete(request.accountId, { command: request.command, file: request.file, path: request.path }) };
    },

    // Peer method: the calling service checked its operation's permission; the scope is checked here.
    findLibraryFiles: async (request, call) => {
      guard.peer(call, request.accountId);
      return { files: await assets.findFiles(request.accountId, request.paths) };
    },

    readLibraryFile: async (request, call) => {
      guard.peer(call, request.accountId);
      return assets.readFile(request.accountId, request.path, request.offset, request.length);
    },
  });
}
