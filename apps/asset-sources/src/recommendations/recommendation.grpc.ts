import { ASSET_SOURCES_ACCESS, type RecommendationDataType, type RecommendationType } from '@contracts/domain';
import { assetSourcesV1 as v1 } from '@contracts/proto';
import type { Logger } from '@platform/logging';
import { unaryHandlers, type CallGuard } from '@platform/service';
import type { RecommendationConfig } from '../sources/asset-source.model';
import type { RecommendationService } from './recommendation.service';

// The service refuses values outside the enumerations, so the casts only carry what it checks.
export const toConfig = (c: v1.RecommendationConfig | undefined): RecommendationConfig => ({
  type: (c?.type ?? '') as RecommendationType,
  maxRecommendations: c?.maxRecommendations ?? 0,
  cookieGroup: c?.cookieGroup,
  recommendationMap: c?.recommendationMap?.entries.map((e) => ({
    assetSourceColumn: e.assetSourceColumn,
    dataType: e.dataType as RecommendationDataType,
    ...(e.priority !== undefined ? { priority: e.priority } : {}),
    ...(e.acceptedRange !== undefined ? { acceptedRange: e.acceptedRange } : {}),
  })),
});

export function recommendationGrpc({
  logger,
  guard,
  recommendations,
}: {
  logger: Logger;
  guard: CallGuard;
  recommendations: RecommendationService;
}): Pick<v1.AssetSourcesServiceServer, 'createRecommendationSource' | 'replaceRecommendationSource' | 'recordRecommendationEvent'> {
  return unaryHandlers(v1.AssetSourcesServiceService, ASSET_SOURCES_ACCESS, logger, {
    createRecommendationSource: async (request, call) => {
      guard.account(call, request.accountId);
      const assetSourceId = await recommendations.create(request.accountId, request.sourceAssetSourceId, {
        updateFrequency: request.updateFrequency,
        config: toConfig(request.config),
      });
      return { assetSourceId };
    },

    replaceRecommendationSource: async (request, call) => {
      guard.account(call, request.accountId);
      const assetSourceId = await recommendations.replace(request.accountId, request.sourceAssetSourceId, request.assetSourceId, {
        updateFrequency: request.updateFrequency,
        config: toConfig(request.config),
      });
      return { assetSourceId };
    },

    recordRecommendationEvent: async (request, call) => {
      guard.account(call, request.accountId);
      await recommendations.recordEvent(request.accountId, request.assetSourceId, {
        cookieId: request.cookieId,
        itemKey: request.itemKey,
        eventType: request.eventType,
      });
      return {};
    },
  });
}
