import { PERMISSIONS } from '@contracts/domain';
import { assetSourcesV1 as v1 } from '@contracts/proto';
import { unary } from '@platform/grpc';
import type { Logger } from '@platform/logging';
import type { CallGuard } from '@platform/service';
import type { LabelService } from './label.service';

export function labelGrpc({
  logger,
  guard,
  labels,
}: {
  logger: Logger;
  guard: CallGuard;
  labels: LabelService;
}): Pick<v1.AssetSourcesServiceServer, 'addLabel' | 'listLabels' | 'deleteLabel'> {
  return {
    addLabel: unary(logger, 'AddLabel', async (request, call) => {
      guard.account(call, PERMISSIONS.assetSourcesEdit, request.accountId);
      return { added: await labels.add(request.accountId, request.assetSourceId, request.label) };
    }),

    listLabels: unary(logger, 'ListLabels', async (request, call) => {
      guard.account(call, PERMISSIONS.assetSourcesView, request.accountId);
      const page = await labels.list(request.accountId, request.assetSourceId, request.page);
      return { labels: page.items, total: page.total };
    }),

    deleteLabel: unary(logger, 'DeleteLabel', async (request, call) => {
      guard.account(call, PERMISSIONS.assetSourcesEdit, request.accountId);
      await labels.delete(request.accountId, request.assetSourceId, request.label);
      return {};
    }),
  };
}
