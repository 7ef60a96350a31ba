import type { AdUnitGroup } from '@contracts/domain';

/** One ad-unit type of the reference catalog and the placement dimensions that offer it. */
export interface AdUnitTypeEntry {
  adUnitTypeId: number;
  group: AdUnitGroup;
  name: string;
  /** In-stream only: dynamic product-rich video. */
  isDynamicPriVideo?: boolean;
  dimensions: readonly string[];
}

/** An ad-unit type a given dimension offers. */
export interface AdUnitTypeRecord {
  adUnitTypeId: number;
  group: AdUnitGroup;
  name: string;
  isDynamicPriVideo: boolean;
}

/** The groups of ad units a placement's dimension offers; a group it does not offer is absent. */
export interface AdUnitDetails {
  placementId: number;
  inBanner?: {
    adUnitTypes: { id: number; name: string }[];
    hasMobileUnit: boolean;
    mobileBannerType: string[];
    mobileFlexCreativeUnitType: Record<string, number>;
    dimension: string;
  };
  inStream?: {
    adTagType: string[];
    dynamicPriVideo: boolean;
    playerType: { name: string; version: string }[];
    videoTagType: string[];
  };
  mobile?: { adUnitTypes: { id: number; name: string }[]; dimension: string };
  native?: { adUnitTypes: { id: number; name: string }[]; dimension: string; responseFormat: Record<string, string> };
}
