import type { taggingTrackersV1 } from '@contracts/proto';
import type { PromiseClient } from '@platform/grpc';

/** What content-creative asks tagging-trackers: the trackers a served ad fires, placement by placement. */
export interface TaggingTrackersPeer {
  /** Each placement of the plan that has trackers: tracker record field name to URLs. */
  placementTrackers(accountId: number, mediaPlanId: number, retailCampaignId: number): Promise<Map<number, Record<string, string[]>>>;
}

export function taggingTrackersPeer(client: PromiseClient<taggingTrackersV1.TaggingTrackersServiceClient>): TaggingTrackersPeer {
  return {
    async placementTrackers(accountId, mediaPlanId, retailCampaignId) {
      const { sites } = await client.getServingTrackers({ accountId, mediaPlanId, campaignId: retailCampaignId });
      const byPlacement = new Map<number, Record<string, string[]>>();
      for (const site of sites) {
        for (const placement of site.placements) {
          const record = byPlacement.get(placement.placementId) ?? {};
          for (const list of placement.trackers) if (list.values.length > 0) record[list.field] = [...(record[list.field] ?? []), ...list.values];
          byPlacement.set(placement.placementId, record);
        }
      }
      return byPlacement;
    },
  };
}
