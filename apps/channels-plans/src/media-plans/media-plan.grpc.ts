import { CHANNELS_PLANS_ACCESS } from '@contracts/domain';
import { channelsPlansV1 as v1 } from '@contracts/proto';
import type { Logger } from '@platform/logging';
import { unaryHandlers, type CallGuard } from '@platform/service';
import { toPlacement } from '../placements/placement.grpc';
import type { MediaPlanView } from './media-plan.model';
import type { MediaPlanService } from './media-plan.service';

const toMediaPlan = (view: MediaPlanView): v1.GetMediaPlanResponse => ({
  mediaPlanId: view.mediaPlanId,
  mediaPlanName: view.mediaPlanName,
  adServersSelected: view.adServers !== undefined,
  adServers: (view.adServers ?? []).map((a) => ({
    adServerId: a.adServerId,
    adServerName: a.adServerName ?? undefined,
    adServerKind: a.adServerKind,
    placements: a.placements.map(toPlacement),
  })),
});

type MediaPlanHandlers = Pick<v1.ChannelsPlansServiceServer, 'createAutoMediaPlan' | 'getMediaPlan'>;

export function mediaPlanGrpc({ logger, guard, mediaPlans }: { logger: Logger; guard: CallGuard; mediaPlans: MediaPlanService }): MediaPlanHandlers {
  return unaryHandlers(v1.ChannelsPlansServiceService, CHANNELS_PLANS_ACCESS, logger, {
    createAutoMediaPlan: async (request, call) => {
      const principal = guard.account(call, request.accountId);
      return mediaPlans.createAuto({ orgId: principal.orgId, dimensionWhitelist: principal.org.dimensionWhitelist }, request.accountId, {
        retailCampaignId: request.retailCampaignId,
        mediaChannelIdx: request.mediaChannelIdx,
        dimensions: request.dimensions,
      });
    },

    getMediaPlan: async (request, call) => {
      guard.account(call, request.accountId);
      return toMediaPlan(await mediaPlans.get(request.accountId, request.mediaPlanId, request.fields, request.page));
    },
  });
}
