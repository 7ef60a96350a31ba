import { STORAGE_LIBRARY_ACCESS } from '@contracts/domain';
import { storageLibraryV1 as v1 } from '@contracts/proto';
import type { Logger } from '@platform/logging';
import { unaryHandlers, type CallGuard } from '@platform/service';
import { rootUrl, type CloudServiceRecord } from './cloud-service.model';
import type { CloudServiceService } from './cloud-service.service';

/** What a response shows of a cloud service: never its credentials. */
const toCloudService = (record: CloudServiceRecord): v1.CloudService => ({
  id: record.id,
  name: record.name,
  serviceType: record.serviceType,
  rootDir: rootUrl(record),
});

type CloudMethods = 'listCloudServices' | 'createCloudService' | 'renameCloudService' | 'deleteCloudService' | 'listCloudFiles' | 'copyFromCloud';

export function cloudServiceGrpc({
  logger,
  guard,
  cloud,
}: {
  logger: Logger;
  guard: CallGuard;
  cloud: CloudServiceService;
}): Pick<v1.StorageLibraryServiceServer, CloudMethods> {
  return unaryHandlers(v1.StorageLibraryServiceService, STORAGE_LIBRARY_ACCESS, logger, {
    listCloudServices: async (request, call) => {
      guard.account(call, request.accountId);
      return { services: (await cloud.list(request.accountId)).map(toCloudService) };
    },

    createCloudService: async (request, call) => {
      guard.account(call, request.accountId);
      const record = await cloud.create(request.accountId, {
        name: request.name,
        serviceType: request.serviceType,
        rootDir: request.rootDir,
        accessKey: request.accessKey,
        secretKey: request.secretKey,
        endpoint: request.endpoint,
        region: request.region,
      });
      return { service: toCloudService(record) };
    },

    renameCloudService: async (request, call) => {
      guard.account(call, request.accountId);
      await cloud.rename(request.accountId, request.serviceId, request.name);
      return {};
    },

    deleteCloudService: async (request, call) => {
      guard.account(call, request.accountId);
      await cloud.delete(request.accountId, request.serviceId);
      return {};
    },

    listCloudFiles: async (request, call) => {
      guard.account(call, request.accountId);
      return cloud.listFiles(request.accountId, request.serviceId, request.path);
    },

    copyFromCloud: async (request, call) => {
      // The copy reads the customer's bucket and writes the account's library.
      guard.account(call, request.accountId);
      guard.account(call, request.accountId);
      const queueId = await cloud.copy(request.accountId, request.serviceId, { path: request.path, files: request.files, folders: request.folders });
      return { queueId };
    },
  });
}
