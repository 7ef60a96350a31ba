import type { AdServerKind, PlacementParams } from '@contracts/domain';

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

/** What a caller asks a new placement for; checked by the service. */
export interface CreatePlacementInput {
  placementName: string;
  siteName: string;
  dimension: string;
  adServerId: string;
}

/** Fields left undefined stay as they are; `params` members given replace the stored ones. */
export interface UpdatePlacementInput {
  placementId: number;
  siteIdx: number;
  placementName?: string;
  siteName?: string;
  adServerId?: string;
  dimension?: string;
  params?: PlacementParams;
}

/** A placement row as an update reads it, locked. */
export interface LockedPlacement {
  placementId: number;
  siteIdx: number;
  siteName: string;
  adServerId: string;
  placementName: string;
  dimension: string;
  adUnitType: string;
  paramsJson: string;
}

/** Column changes of one placement. */
export interface PlacementChanges {
  siteIdx?: number;
  placementName?: string;
  dimension?: string;
  adUnitType?: string;
  paramsJson?: string;
}

/** The plan's placements by the ad server of their site, ad servers in the order their first site was added. */
export interface BulkTagData {
  mediaPlanId: number;
  mediaPlanName: string;
  adServers: { adServerId: string; adServerName: string; adServerKind: AdServerKind; placements: PlanPlacementRecord[] }[];
}
