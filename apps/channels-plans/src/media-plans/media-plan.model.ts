import type { PlanPlacementRecord } from '../placements/placement.model';
import type { MediaPlanField } from '@contracts/domain';

/** The caller's org as the signed principal carries it: whose channels, which sizes it may plan. */
export interface PlanningOrg {
  orgId: string;
  dimensionWhitelist: readonly string[];
}

/** What a caller asks an auto media plan for; checked by the service. */
export interface AutoMediaPlanInput {
  retailCampaignId: number;
  mediaChannelIdx: number;
  dimensions: readonly string[];
}

/** A checked auto plan with its one site and one placement per distinct dimension, stored in one transaction. */
export interface NewAutoMediaPlan {
  accountId: number;
  retailCampaignId: number;
  mediaChannelIdx: number;
  mediaPlanName: string;
  /** The distinct dimensions, sorted and comma-joined: the plan's identity on its campaign and channel. */
  dimensionSet: string;
  site: { adServerId: string; siteName: string };
  placements: { placementName: string; dimension: string; adUnitType: string }[];
}

export interface AutoMediaPlanResult {
  mediaPlanId: number;
  /** False when the campaign already had a plan on the channel for the same dimension set. */
  created: boolean;
}

export interface MediaPlanRecord {
  mediaPlanId: number;
  mediaPlanName: string;
}

export interface MediaPlanAdServerRecord {
  adServerId: string;
  adServerName: string | null;
  adServerKind: string;
}

/** A media plan read: only the selected top-level fields are present. */
export interface MediaPlanView {
  selected: ReadonlySet<MediaPlanField>;
  mediaPlanId?: number;
  mediaPlanName?: string;
  adServers?: (MediaPlanAdServerRecord & { placements: PlanPlacementRecord[] })[];
}
