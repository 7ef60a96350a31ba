import { PERMISSIONS } from '@contracts/domain';
import { storageLibraryV1 as v1 } from '@contracts/proto';
import { unary } from '@platform/grpc';
import type { Logger } from '@platform/logging';
import type { CallGuard } from '@platform/service';
import type { QueueService } from './queue.service';

export function queueGrpc({
  logger,
  guard,
  queues,
}: {
  logger: Logger;
  guard: CallGuard;
  queues: QueueService;
}): Pick<v1.StorageLibraryServiceServer, 'getQueue'> {
  return {
    getQueue: unary(logger, 'GetQueue', async (request, call) => {
      // The path names no account: the queue's own account is the scope, checked by the service.
      const principal = guard.any(call, PERMISSIONS.queuesView);
      const view = await queues.get(principal.accountIds, request.queueId);
      return { id: view.queueId, message: view.message, status: view.status, totalItems: view.totalItems, totalProcessed: view.totalProcessed };
    }),
  };
}
