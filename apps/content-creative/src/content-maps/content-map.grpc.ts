import { CONTENT_CREATIVE_ACCESS } from '@contracts/domain';
import { contentCreativeV1 as v1 } from '@contracts/proto';
import type { PeerOf } from '@platform/grpc';
import type { Logger } from '@platform/logging';
import { unaryHandlers, type CallGuard } from '@platform/service';
import type { AssetSourcesPeer } from '../peers/asset-sources.peer';
import type { ChannelsPlansPeer } from '../peers/channels-plans.peer';
import type { ContentMapKey } from './content-map.model';
import type { ContentMapService, PlacementView } from './content-map.service';

const toPlacement = (p: PlacementView): v1.PlacementContentRead => ({
  placementId: p.placementId,
  externalPlacementId: p.externalPlacementId ?? undefined,
  placementName: p.placementName ?? undefined,
  dimension: p.dimension ?? undefined,
  content: p.content.map((c) => ({
    contentValue: c.contentValue,
    displayValue: c.displayValue ?? undefined,
    productImageUrl: c.productImageUrl ?? undefined,
    previewUrls: c.previewUrls.map((u) => ({ adUnitId: u.adUnitId, url: u.url ?? undefined, objectPath: u.objectPath })),
  })),
});

export function contentMapGrpc({
  logger,
  guard,
  contentMaps,
  assetSources,
  channelsPlans,
}: {
  logger: Logger;
  guard: CallGuard;
  contentMaps: ContentMapService;
  assetSources: PeerOf<AssetSourcesPeer>;
  channelsPlans: PeerOf<ChannelsPlansPeer>;
}): Pick<v1.ContentCreativeServiceServer, 'saveContentMap' | 'getContentMap'> {
  const keyOf = (r: { accountId: number; retailCampaignId: number; mediaPlanId: number }): ContentMapKey => ({
    accountId: r.accountId,
    retailCampaignId: r.retailCampaignId,
    mediaPlanId: r.mediaPlanId,
  });
  return unaryHandlers(v1.ContentCreativeServiceService, CONTENT_CREATIVE_ACCESS, logger, {
    saveContentMap: async (request, call) => {
      guard.account(call, request.accountId);
      const placements = await contentMaps.save(
        keyOf(request),
        {
          contentType: request.contentType,
          dataServiceId: request.dataServiceId,
          adGroupPlacementCreativeMap: request.adGroupPlacementCreativeMap.map((g) => ({
            adGroupId: g.adGroupId,
            adGroupName: g.adGroupName,
            status: g.status,
            placementCreativeMap: g.placementCreativeMap.map((p) => ({ ...p })),
          })),
        },
        channelsPlans(call),
        assetSources(call),
      );
      return { placements };
    },

    getContentMap: async (request, call) => {
      guard.account(call, request.accountId);
      const view = await contentMaps.get(keyOf(request), request.page, channelsPlans(call), assetSources(call));
      return {
        contentType: view.contentType ?? undefined,
        numOfCards: view.numOfCards ?? undefined,
        isAdGroupCampaign: view.isAdGroupCampaign,
        placementContentMap: view.placementContentMap.map(toPlacement),
        adGroupPlacementCreativeMap: view.adGroupPlacementCreativeMap.map((g) => ({ ...g, placementCreativeMap: g.placementCreativeMap.map(toPlacement) })),
        total: view.total,
      };
    },
  });
}
