import type { AdServerKind } from '@contracts/domain';

/** One placement of a media plan with its site and the ad server the site is on. */
export interface PlanPlacementRecord {
  placementId: number;
  placementName: string;
  siteIdx: number;
  siteName: string;
  dimension: string;
  adUnitType: string;
  isTagPresent: boolean;
  adServerId: string;
  adServerName: string;
  adServerKind: AdServerKind;
  /** The stored params as JSON text (`{}` when none is set): handed on unparsed. */
  paramsJson: string;
}

/** A media plan as peers and the bulk-tag read see it: which campaign it belongs to, and its placements. */
export interface PlanPlacements {
  mediaPlanId: number;
  mediaPlanName: string;
  retailCampaignId: number;
  placements: PlanPlacementRecord[];
}

/** The media plan row a placement operation hangs off. */
export interface PlanRef {
  mediaPlanId: number;
  mediaPlanName: string;
  retailCampaignId: number;
}
