import { CHANNELS_PLANS_ACCESS, pickFieldInput, PLACEMENT_PARAM_FIELDS, type PlacementParams } from '@contracts/domain';
import { channelsPlansV1 as v1 } from '@contracts/proto';
import type { Logger } from '@platform/logging';
import { unaryHandlers, type CallGuard } from '@platform/service';
import type { AdUnitDetails } from '../ad-units/ad-unit.model';
import type { BulkTagData, PlanPlacementRecord } from './placement.model';
import type { PlacementService } from './placement.service';

/** The one placement mapper: the media plan read, the bulk-tag read, create, update and the peer list all answer it. */
export const toPlacement = (p: PlanPlacementRecord): v1.Placement => ({
  placementId: p.placementId,
  placementName: p.placementName,
  siteIdx: p.siteIdx,
  siteName: p.siteName,
  dimension: p.dimension,
  isTagPresent: p.isTagPresent,
  adUnitType: p.adUnitType,
  paramsJson: p.paramsJson,
  adServerId: p.adServerId,
  adServerName: p.adServerName,
  adServerKind: p.adServerKind,
});

const toBulkTagData = (data: BulkTagData): v1.GetBulkTagDataResponse => ({
  mediaPlanId: data.mediaPlanId,
  mediaPlanName: data.mediaPlanName,
  adServers: data.adServers.map((a) => ({
    adServerId: a.adServerId,
    adServerName: a.adServerName,
    adServerKind: a.adServerKind,
    placements: a.placements.map(toPlacement),
  })),
});

const toAdUnitDetails = (d: AdUnitDetails): v1.GetAdUnitDetailsResponse => ({
  placementId: d.placementId,
  inBannerAdUnit: d.inBanner,
  inStreamAdUnit: d.inStream,
  mobileAdUnit: d.mobile,
  nativeAdUnit: d.native,
});

/** The params a request sets (proto optional fields arrive as undefined when absent), named by PLACEMENT_PARAM_FIELDS. */
const toParams = (p: v1.PlacementParams | undefined): PlacementParams | undefined => p && pickFieldInput(PLACEMENT_PARAM_FIELDS, 'update', p);

type PlacementHandlers = Pick<
  v1.ChannelsPlansServiceServer,
  'listPlanPlacements' | 'markTagsPresent' | 'getBulkTagData' | 'getAdUnitDetails' | 'createPlacement' | 'updatePlacement'
>;

export function placementGrpc({ logger, guard, placements }: { logger: Logger; guard: CallGuard; placements: PlacementService }): PlacementHandlers {
  return unaryHandlers(v1.ChannelsPlansServiceService, CHANNELS_PLANS_ACCESS, logger, {
    getBulkTagData: async (request, call) => {
      guard.account(call, request.accountId);
      return toBulkTagData(await placements.bulkTagData(request.accountId, request.mediaPlanId, request.retailCampaignId));
    },

    getAdUnitDetails: async (request, call) => {
      guard.account(call, request.accountId);
      return toAdUnitDetails(await placements.adUnitDetails(request.accountId, request.mediaPlanId, request.retailCampaignId, request.placementId));
    },

    createPlacement: async (request, call) => {
      guard.account(call, request.accountId);
      const placement = await placements.create(request.accountId, request.mediaPlanId, {
        placementName: request.placementName,
        siteName: request.siteName,
        dimension: request.dimension,
        adServerId: request.adServerId,
      });
      return { placement: toPlacement(placement) };
    },

    updatePlacement: async (request, call) => {
      guard.account(call, request.accountId);
      const placement = await placements.update(request.accountId, request.mediaPlanId, {
        placementId: request.placementId,
        siteIdx: request.siteIdx,
        placementName: request.placementName,
        siteName: request.siteName,
        adServerId: request.adServerId,
        dimension: request.dimension,
        params: toParams(request.params),
      });
      return { placement: toPlacement(placement) };
    },

    // Peer methods: the calling service checked its operation's permission; the scope is checked here.
    listPlanPlacements: async (request, call) => {
      guard.peer(call, request.accountId);
      const plan = await placements.listForPlan(request.accountId, request.mediaPlanId);
      return {
        mediaPlanId: plan.mediaPlanId,
        mediaPlanName: plan.mediaPlanName,
        retailCampaignId: plan.retailCampaignId,
        placements: plan.placements.map(toPlacement),
      };
    },

    markTagsPresent: async (request, call) => {
      guard.peer(call, request.accountId);
      return { marked: await placements.markTagsPresent(request.accountId, request.mediaPlanId, request.placementIds) };
    },
  });
}
