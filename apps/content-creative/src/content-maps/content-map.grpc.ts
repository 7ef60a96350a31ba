import { PERMISSIONS } from '@contracts/domain';
import { assetSourcesV1, channelsPlansV1, contentCreativeV1 as v1 } from '@contracts/proto';
import { unary, type Metadata, type PeerClient } from '@platform/grpc';
import type { Logger } from '@platform/logging';
import type { CallGuard } from '@platform/service';
import type { AssetRowDirectory, CampaignPlanDirectory, ContentMapKey } from './content-map.model';
import type { ContentMapService, PlacementView } from './content-map.service';

/** channels-plans, asked on behalf of the caller of the call being served. */
export const campaignPlanDirectory = (peer: PeerClient<channelsPlansV1.ChannelsPlansServiceClient>, metadata: Metadata): CampaignPlanDirectory => ({
  async campaign(accountId, retailCampaignId) {
    const facts = await peer.as(metadata).getCampaignFacts({ accountId, retailCampaignId });
    return {
      isAdGroupCampaign: facts.isAdGroupCampaign,
      isSbt: facts.isSbt,
      adGroups: facts.adGroups.map((g) => ({ adGroupId: g.adGroupId, adGroupName: g.adGroupName })),
    };
  },
  async plan(accountId, mediaPlanId) {
    const plan = await peer.as(metadata).listPlanPlacements({ accountId, mediaPlanId });
    return {
      retailCampaignId: plan.retailCampaignId,
      placements: plan.placements.map((p) => ({
        placementId: p.placementId,
        placementName: p.placementName,
        dimension: p.dimension,
        adServerKind: p.adServerKind,
      })),
    };
  },
});

/** asset-sources, asked on behalf of the caller of the call being served. */
export const assetRowDirectory = (peer: PeerClient<assetSourcesV1.AssetSourcesServiceClient>, metadata: Metadata): AssetRowDirectory => ({
  async describe(accountId, assetSourceId) {
    const { sources } = await peer.as(metadata).describeAssetSources({ accountId, assetSourceIds: [assetSourceId] });
    const source = sources.find((s) => s.assetSourceId === assetSourceId);
    return source && { columnNames: source.columnNames, assetKeyColumn: source.assetKeyColumn };
  },
  async find(accountId, assetSourceId, column, values) {
    const { rows } = await peer.as(metadata).findAssetRows({ accountId, assetSourceId, column, values });
    return new Map(rows.map((row) => [row.value, JSON.parse(row.rowJson) as Record<string, unknown>]));
  },
});

const toPlacement = (p: PlacementView): v1.PlacementContentRead => ({
  placementId: p.placementId,
  externalPlacementId: p.externalPlacementId ?? undefined,
  placementName: p.placementName ?? undefined,
  dimension: p.dimension ?? undefined,
  content: p.content.map((c) => ({
    contentValue: c.contentValue,
    displayValue: c.displayValue ?? undefined,
    productImageUrl: c.productImageUrl ?? undefined,
    previewUrls: c.previewUrls.map((u) => ({ adUnitId: u.adUnitId, url: u.url ?? undefined })),
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
  assetSources: PeerClient<assetSourcesV1.AssetSourcesServiceClient>;
  channelsPlans: PeerClient<channelsPlansV1.ChannelsPlansServiceClient>;
}): Pick<v1.ContentCreativeServiceServer, 'saveContentMap' | 'getContentMap'> {
  const keyOf = (r: { accountId: number; retailCampaignId: number; mediaPlanId: number }): ContentMapKey => ({
    accountId: r.accountId,
    retailCampaignId: r.retailCampaignId,
    mediaPlanId: r.mediaPlanId,
  });
  return {
    saveContentMap: unary(logger, 'SaveContentMap', async (request, call) => {
      guard.account(call, PERMISSIONS.mediaPlanEdit, request.accountId);
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
        campaignPlanDirectory(channelsPlans, call.metadata),
        assetRowDirectory(assetSources, call.metadata),
      );
      return { placements };
    }),

    getContentMap: unary(logger, 'GetContentMap', async (request, call) => {
      guard.account(call, PERMISSIONS.mediaPlanList, request.accountId);
      const view = await contentMaps.get(
        keyOf(request),
        request.page,
        campaignPlanDirectory(channelsPlans, call.metadata),
        assetRowDirectory(assetSources, call.metadata),
      );
      return {
        contentType: view.contentType ?? undefined,
        numOfCards: view.numOfCards ?? undefined,
        isAdGroupCampaign: view.isAdGroupCampaign,
        placementContentMap: view.placementContentMap.map(toPlacement),
        adGroupPlacementCreativeMap: view.adGroupPlacementCreativeMap.map((g) => ({ ...g, placementCreativeMap: g.placementCreativeMap.map(toPlacement) })),
        total: view.total,
      };
    }),
  };
}
