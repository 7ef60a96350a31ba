import { TAGGING_TRACKERS_ACCESS } from '@contracts/domain';
import { taggingTrackersV1 as v1 } from '@contracts/proto';
import type { Logger } from '@platform/logging';
import { unaryHandlers, type CallGuard } from '@platform/service';
import type { Metadata, PeerOf } from '@platform/grpc';
import type { ChannelsPlansPeer } from '../peers/channels-plans.peer';
import type { TrackerService } from './tracker.service';

const toLists = (byField: Record<string, string[]>): v1.TrackerList[] => Object.entries(byField).map(([field, values]) => ({ field, values }));

export function trackerGrpc({
  logger,
  guard,
  channelsPlans,
  trackers,
}: {
  logger: Logger;
  guard: CallGuard;
  channelsPlans: PeerOf<ChannelsPlansPeer>;
  trackers: TrackerService;
}): Pick<v1.TaggingTrackersServiceServer, 'getCampaignTrackers' | 'getPlanTrackers' | 'updatePlanTrackers' | 'getServingTrackers'> {
  const planTrackersAnswer = async (
    request: Pick<v1.GetPlanTrackersRequest, 'accountId' | 'mediaPlanId' | 'campaignId' | 'siteId' | 'placementId'>,
    call: { metadata: Metadata },
  ): Promise<v1.GetPlanTrackersResponse> => {
    const plan = await trackers.planTrackers(channelsPlans(call), request.accountId, request.mediaPlanId, request.campaignId, {
      siteId: request.siteId,
      placementId: request.placementId,
    });
    return {
      mediaPlanId: plan.mediaPlanId,
      mediaPlanName: plan.mediaPlanName,
      sites: plan.sites.map((site) => ({
        siteId: site.siteIdx,
        siteName: site.siteName,
        placements: site.placements.map((p) => ({ placementId: p.placementId, placementName: p.placementName, trackers: toLists(p.trackers) })),
      })),
    };
  };
  return unaryHandlers(v1.TaggingTrackersServiceService, TAGGING_TRACKERS_ACCESS, logger, {
    getCampaignTrackers: async (request, call) => {
      guard.account(call, request.accountId);
      return trackers.campaignTrackers(channelsPlans(call), request.accountId, request.retailCampaignId);
    },

    getPlanTrackers: async (request, call) => {
      guard.account(call, request.accountId);
      return planTrackersAnswer(request, call);
    },

    getServingTrackers: async (request, call) => {
      guard.peer(call, request.accountId);
      const { sites } = await planTrackersAnswer(request, call);
      return { sites };
    },

    updatePlanTrackers: async (request, call) => {
      guard.account(call, request.accountId);
      const result = await trackers.update(channelsPlans(call), request.accountId, request.mediaPlanId, request.campaignId, {
        type: request.type,
        isValidate: request.isValidate,
        rows: request.rows.map((row) => ({ siteName: row.siteName, placementName: row.placementName, trackers: row.trackers })),
      });
      return { ...result, errorResponse: toLists(result.errorResponse) };
    },
  });
}
