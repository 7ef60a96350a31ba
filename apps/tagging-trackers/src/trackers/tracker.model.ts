import type { TrackerType } from '@contracts/domain';

export interface StoredTracker {
  siteIdx: number;
  placementId: number;
  trackerType: TrackerType;
  value: string;
}

export interface NewTracker extends StoredTracker {
  accountId: number;
  campaignId: number;
  mediaPlanId: number;
}

/** One mediaPlanDetails entry: a placement named by site and placement name, and tracker values by update field. */
export interface TrackerRowInput {
  siteName: string;
  placementName: string;
  trackers: Record<string, string>;
}

export interface TrackerUpdateInput {
  type: string;
  isValidate: boolean;
  rows: TrackerRowInput[];
}

export interface TrackerUpdateResult {
  siteUpdatedCount: number;
  siteAppendedCount: number;
  placementUpdatedCount: number;
  placementAppendedCount: number;
  trackerAppendedCount: number;
  updatedCampaignId: boolean;
  updatedMediaPlanName: boolean;
  /** Field name to the values refused in it (siteName and placementName for names the plan does not hold). */
  errorResponse: Record<string, string[]>;
}

export interface PlacementTrackerRecord {
  placementId: number;
  placementName: string;
  /** Record field name (primaryClickTracker, secondaryClickTrackers, ...) to values, every field present. */
  trackers: Record<string, string[]>;
}

export interface SiteTrackerRecord {
  siteIdx: number;
  siteName: string;
  placements: PlacementTrackerRecord[];
}
