import type { ContentType } from '@contracts/domain';

export interface PlacementContentInput {
  placementId: string;
  externalPlacementId?: string;
  placementName?: string;
  dimension?: string;
  siteId?: string;
  content: string[];
}

export interface AdGroupContentInput {
  adGroupId: string;
  adGroupName?: string;
  status?: string;
  placementCreativeMap: PlacementContentInput[];
}

/** A content map as a caller saves it. */
export interface ContentMapInput {
  contentType: string;
  dataServiceId?: number;
  adGroupPlacementCreativeMap: AdGroupContentInput[];
}

/** Which map a content map is: one campaign's media plan, in one account. */
export interface ContentMapKey {
  accountId: number;
  retailCampaignId: number;
  mediaPlanId: number;
}

/** One placement of a stored map; adGroupId 0 when the campaign has no ad groups. */
export interface StoredPlacement {
  adGroupId: number;
  adGroupName: string | null;
  status: string | null;
  placementId: number;
  externalPlacementId: string | null;
  placementName: string | null;
  dimension: string | null;
  siteId: string | null;
  content: string[];
}

export interface StoredContentMap {
  contentType: ContentType;
  dataServiceId: number | null;
  /** The asset-source column content values were checked in; null when they are not looked up. */
  lookupColumn: string | null;
  /** The largest number of content items on one placement: the cards a carousel needs. */
  numOfCards: number;
}

/** What channels-plans knows of the campaign and the media plan a map is saved for. */
export interface CampaignFacts {
  retailCampaignId: number;
  campaignName: string;
  /** DRAFT, ACTIVE, PAUSED or ARCHIVED. */
  status: string;
  templateIdx: number | null;
  isAdGroupCampaign: boolean;
  isSbt: boolean;
  adGroups: { adGroupId: number; adGroupName: string }[];
}

export interface PlanPlacementFacts {
  placementId: number;
  placementName: string;
  dimension: string;
  /** onsite-retail-media, display, video, social or dooh. */
  adServerKind: string;
}

export interface PlanFacts {
  retailCampaignId: number;
  placements: PlanPlacementFacts[];
}
