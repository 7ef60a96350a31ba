import { channelsPlansV1 as v1 } from '@contracts/proto';
import { unary } from '@platform/grpc';
import type { Logger } from '@platform/logging';
import type { CallGuard } from '@platform/service';
import type { PlanPlacementRecord } from './placement.model';
import type { PlacementService } from './placement.service';

const toPlanPlacement = (p: PlanPlacementRecord): v1.PlanPlacement => ({
  placementId: p.placementId,
  placementName: p.placementName,
  siteIdx: p.siteIdx,
  siteName: p.siteName,
  dimension: p.dimension,
  isTagPresent: p.isTagPresent,
  adServerId: p.adServerId,
  adServerName: p.adServerName,
  adServerKind: p.adServerKind,
  paramsJson: p.paramsJson,
  adUnitType: p.adUnitType,
});

type PlacementHandlers = Pick<v1.ChannelsPlansServiceServer, 'listPlanPlacements' | 'markTagsPresent'>;

export function placementGrpc({ logger, guard, placements }: { logger: Logger; guard: CallGuard; placements: PlacementService }): PlacementHandlers {
  return {
    // Peer methods: the calling service checked its operation's permission; the scope is checked here.
    listPlanPlacements: unary(logger, 'ListPlanPlacements', async (request, call) => {
      guard.peer(call, request.accountId);
      const plan = await placements.listForPlan(request.accountId, request.mediaPlanId);
      return {
        mediaPlanId: plan.mediaPlanId,
        mediaPlanName: plan.mediaPlanName,
        retailCampaignId: plan.retailCampaignId,
        placements: plan.placements.map(toPlanPlacement),
      };
    }),

    markTagsPresent: unary(logger, 'MarkTagsPresent', async (request, call) => {
      guard.peer(call, request.accountId);
      return { marked: await placements.markTagsPresent(request.accountId, request.mediaPlanId, request.placementIds) };
    }),
  };
}
