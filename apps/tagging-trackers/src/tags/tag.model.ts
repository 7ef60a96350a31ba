import type { SingleTagKind } from '@contracts/domain';

export interface PrivacyOption {
  include: boolean;
  type: string;
  consentMacro?: string;
}

/** A single-tag request as the service reads it (absent options already defaulted). */
export interface SingleTagOptions {
  kind: SingleTagKind;
  campaignId: number;
  adServerId: string;
  includeAdChoices: boolean;
  /** JSON object text; empty means {}. */
  additionalParamsJson: string;
  privacy: PrivacyOption[];
  secureTags: boolean;
  dataSignalMap: Record<string, string>;
  adUnitId?: number;
  enableNoScriptTag: boolean;
  enableForMobileApp: boolean;
  thirdPartyTrackingScript?: string;
  mobileResponsiveOptions?: { include: boolean; mobileFlexCreativeUnitType?: number; bannerType?: string };
  tagType?: string;
  playerType?: { name: string; version: string };
  isDynamicPriVideo: boolean;
  baseAdUnitId?: number;
  behaviourAdUnitTypeId?: number;
  useCustomLayout: boolean;
}

/** The placement a tag is for, as channels-plans knows it. */
export interface TagPlacement {
  mediaPlanId: number;
  placementId: number;
  placementName: string;
  siteName: string;
  dimension: string;
}

export interface NewTagMetadata extends TagPlacement {
  accountId: number;
  campaignId: number;
  adServerId: string;
  kind: SingleTagKind;
  optionsJson: string;
}

export interface CampaignTagRow {
  tagMetadataId: number;
  siteName: string;
  placementId: number;
  placementName: string;
  dimension: string;
  adServerId: string;
  kind: string;
  tagValue: string;
}
