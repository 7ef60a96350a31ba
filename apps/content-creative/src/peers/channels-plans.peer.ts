import type { channelsPlansV1 } from '@contracts/proto';
import type { PromiseClient } from '@platform/grpc';
import type { CampaignFacts, PlanFacts } from '../content-maps/content-map.model';

/**
 * What content-creative asks channels-plans, on behalf of the caller of the operation it serves: the
 * campaign and media-plan facts a content map is checked against. A missing or foreign campaign or
 * plan rejects with channels-plans' own 404.
 */
export interface ChannelsPlansPeer {
  campaign(accountId: number, retailCampaignId: number): Promise<CampaignFacts>;
  plan(accountId: number, mediaPlanId: number): Promise<PlanFacts>;
}

export function channelsPlansPeer(client: PromiseClient<channelsPlansV1.ChannelsPlansServiceClient>): ChannelsPlansPeer {
  return {
    async campaign(accountId, retailCampaignId) {
      const facts = await client.getCampaignFacts({ accountId, retailCampaignId });
      return {
        retailCampaignId: facts.retailCampaignId,
        campaignName: facts.campaignName,
        status: facts.status,
        templateIdx: facts.templateIdx ?? null,
        isAdGroupCampaign: facts.isAdGroupCampaign,
        isSbt: facts.isSbt,
        adGroups: facts.adGroups.map((g) => ({ adGroupId: g.adGroupId, adGroupName: g.adGroupName })),
      };
    },
    async plan(accountId, mediaPlanId) {
      const plan = await client.listPlanPlacements({ accountId, mediaPlanId });
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
  };
}
