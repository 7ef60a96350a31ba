import { storageLibraryV1 as v1 } from '@contracts/proto';
import type { Logger } from '@platform/logging';
import type { CallGuard } from '@platform/service';
import { assetLibraryGrpc } from './asset-library/asset-library.grpc';
import { auditLogGrpc } from './audit/audit-log.grpc';
import { cloudServiceGrpc } from './cloud-services/cloud-service.grpc';
import { queueGrpc } from './queues/queue.grpc';
import type { StorageLibraryServices } from './storage-library.services';
import { webhookGrpc } from './webhooks/webhook.grpc';

/** The whole StorageLibraryService: each feature brings the handlers of its operations. */
export function storageLibraryGrpc(deps: StorageLibraryServices & { logger: Logger; guard: CallGuard }): v1.StorageLibraryServiceServer {
  return { ...queueGrpc(deps), ...assetLibraryGrpc(deps), ...cloudServiceGrpc(deps), ...webhookGrpc(deps), ...auditLogGrpc(deps) };
}
