import { STORAGE_LIBRARY_ACCESS } from '@contracts/domain';
import { storageLibraryV1 as v1 } from '@contracts/proto';
import { JobStatus } from '@platform/jobs';
import type { Logger } from '@platform/logging';
import { unaryHandlers, type CallGuard } from '@platform/service';
import type { QueueService } from './queue.service';

export function queueGrpc({
  logger,
  guard,
  queues,
}: {
  logger: Logger;
  guard: CallGuard;
  queues: QueueService;
}): Pick<v1.StorageLibraryServiceServer, 'getQueue' | 'recordQueuedJob'> {
  return unaryHandlers(v1.StorageLibraryServiceService, STORAGE_LIBRARY_ACCESS, logger, {
    getQueue: async (request, call) => {
      // The path names no account: the queue's own account is the scope, checked by the service.
      const principal = guard.any(call);
      const view = await queues.get(principal.accountIds, request.queueId);
      return { id: view.queueId, message: view.message, status: view.status, totalItems: view.totalItems, totalProcessed: view.totalProcessed };
    },

    // Peer method: the calling service checked its operation's permission; the scope is checked here.
    recordQueuedJob: async (request, call) => {
      guard.peer(call, request.accountId);
      await queues.apply({
        queueId: request.queueId,
        accountId: request.accountId,
        kind: request.kind,
        status: JobStatus.JOB_STATUS_QUEUED,
        totalItems: 0,
        totalProcessed: 0,
        message: request.message,
        sequence: request.sequence,
        occurredAt: request.occurredAt,
      });
      return {};
    },
  });
}
