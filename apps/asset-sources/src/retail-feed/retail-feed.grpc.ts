import { PERMISSIONS } from '@contracts/domain';
import { assetSourcesV1 as v1 } from '@contracts/proto';
import { unary } from '@platform/grpc';
import type { Logger } from '@platform/logging';
import type { CallGuard } from '@platform/service';
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
  return {
    setRetailFeedSource: unary(logger, 'SetRetailFeedSource', async (request, call) => {
      guard.account(call, PERMISSIONS.assetSourcesEdit, request.accountId);
      await retailFeed.set(request.accountId, request.assetSourceId);
      return {};
    }),

    getRetailFeedSource: unary(logger, 'GetRetailFeedSource', async (request, call) => {
      guard.account(call, PERMISSIONS.assetSourcesView, request.accountId);
      return { assetSourceId: await retailFeed.get(request.accountId) };
    }),

    listRetailFeedValues: unary(logger, 'ListRetailFeedValues', async (request, call) => {
      guard.account(call, PERMISSIONS.assetSourcesView, request.accountId);
      const page = await retailFeed.list(request.accountId, request.field, request.query, request.page);
      return { values: page.items, more: page.more };
    }),
  };
}
