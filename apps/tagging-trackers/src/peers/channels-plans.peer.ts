import type { channelsPlansV1 as cp } from '@contracts/proto';
import type { PromiseClient } from '@platform/grpc';

export interface CampaignFacts {
  retailCampaignId: number;
  campaignName: string;
  status: string;
}

export interface PlanPlacementFacts {
  placementId: number;
  placementName: string;
  siteIdx: number;
  siteName: string;
  dimension: string;
  adServerId: string;
  adServerKind: string;
}

export interface PlanFacts {
  mediaPlanId: number;
  mediaPlanName: string;
  retailCampaignId: number;
  placements: PlanPlacementFacts[];
}

/**
 * What tagging-trackers asks channels-plans, on behalf of the caller of the operation it serves:
 * the ad-server catalog, campaign and plan facts, and marking placements tagged. Missing or
 * out-of-scope campaigns and plans arrive as channels-plans' own 404s.
 */
export interface ChannelsPlansPeer {
  adServerIds(): Promise<ReadonlySet<string>>;
  campaign(accountId: number, retailCampaignId: number): Promise<CampaignFacts>;
  plan(accountId: number, mediaPlanId: number): Promise<PlanFacts>;
  markTagged(accountId: number, mediaPlanId: number, placementIds: number[]): Promise<void>;
}

export function channelsPlansPeer(client: PromiseClient<cp.ChannelsPlansServiceClient>): ChannelsPlansPeer {
  return {
    async adServerIds() {
      const { adServers } = await client.getAdServerCatalog({});
      return new Set(adServers.map((a) => a.adServerId));
    },
    async campaign(accountId, retailCampaignId) {
      const facts = await client.getCampaignFacts({ accountId, retailCampaignId });
      return { retailCampaignId: facts.retailCampaignId, campaignName: facts.campaignName, status: facts.status };
    },
    async plan(accountId, mediaPlanId) {
      const plan = await client.listPlanPlacements({ accountId, mediaPlanId });
      return {
        mediaPlanId: plan.mediaPlanId,
        mediaPlanName: plan.mediaPlanName,
        retailCampaignId: plan.retailCampaignId,
        placements: plan.placements.map((p) => ({
          placementId: p.placementId,
          placementName: p.placementName,
          siteIdx: p.siteIdx,
          siteName: p.siteName,
          dimension: p.dimension,
          adServerId: p.adServerId,
          adServerKind: p.adServerKind,
        })),
      };
    },
    async markTagged(accountId, mediaPlanId, placementIds) {
      await client.markTagsPresent({ accountId, mediaPlanId, placementIds });
    },
  };
}
