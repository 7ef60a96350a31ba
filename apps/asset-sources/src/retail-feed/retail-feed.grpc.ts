import { ASSET_SOURCES_ACCESS } from '@contracts/domain';
import { assetSourcesV1 as v1 } from '@contracts/proto';
import type { Logger } from '@platform/logging';
import { unaryHandlers, type CallGuard } from '@platform/service';
import type { RetailFeedService } from './retail-feed.service';

export function retailFeedGrpc({
  logger,
  guard,
  retailFeed,
}: {
  logger: Logger;
  guard: CallGuard;
  retailFeed: RetailFeedService;
}): Pick<v1.AssetSourcesServiceServer, 'setRetailFeedSource' | 'getRetailFeedSource' | 'listRetailFeedValues'> {
  return unaryHandlers(v1.AssetSourcesServiceService, ASSET_SOURCES_ACCESS, logger, {
    setRetailFeedSource: async (request, call) => {
      guard.account(call, request.accountId);
      await retailFeed.set(request.accountId, request.assetSourceId);
      return {};
    },

    getRetailFeedSource: async (request, call) => {
      guard.account(call, request.accountId);
      return { assetSourceId: await retailFeed.get(request.accountId) };
    },

    listRetailFeedValues: async (request, call) => {
      guard.account(call, request.accountId);
      const page = await retailFeed.list(request.accountId, request.field, request.query, request.page);
      return { values: page.items, more: page.more };
    },
  });
}
