import { ASSET_SOURCES_ACCESS } from '@contracts/domain';
import { assetSourcesV1 as v1 } from '@contracts/proto';
import type { Logger } from '@platform/logging';
import { unaryHandlers, type CallGuard } from '@platform/service';
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
  return unaryHandlers(v1.AssetSourcesServiceService, ASSET_SOURCES_ACCESS, logger, {
    addLabel: async (request, call) => {
      guard.account(call, request.accountId);
      return { added: await labels.add(request.accountId, request.assetSourceId, request.label) };
    },

    listLabels: async (request, call) => {
      guard.account(call, request.accountId);
      const page = await labels.list(request.accountId, request.assetSourceId, request.page);
      return { labels: page.items, total: page.total };
    },

    deleteLabel: async (request, call) => {
      guard.account(call, request.accountId);
      await labels.delete(request.accountId, request.assetSourceId, request.label);
      return {};
    },
  });
}
