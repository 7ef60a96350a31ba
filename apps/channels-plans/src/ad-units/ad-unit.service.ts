import {
  IN_STREAM_AD_TAG_TYPES,
  MOBILE_BANNER_TYPES,
  MOBILE_FLEX_CREATIVE_UNIT_TYPES,
  NATIVE_RESPONSE_FORMATS,
  VIDEO_PLAYER_TYPES,
  VIDEO_TAG_TYPES,
  type AdUnitGroup,
} from '@contracts/domain';
import type { Knex } from 'knex';
import { withTransaction } from '@platform/mysql';
import { AD_UNIT_CATALOG } from './ad-unit.catalog';
import type { AdUnitDetails, AdUnitTypeEntry, AdUnitTypeRecord } from './ad-unit.model';
import type { AdUnitRepository } from './ad-unit.repository';

/**
 * The ad-unit catalog: which ad units a placement of a given dimension offers, in four groups
 * (in-banner, in-stream, mobile, native), with the options of each group's tags.
 */
export class AdUnitService {
  constructor(
    private readonly knex: Knex,
    private readonly adUnits: AdUnitRepository,
  ) {}

  seedCatalog(catalog: readonly AdUnitTypeEntry[] = AD_UNIT_CATALOG): Promise<void> {
    return withTransaction(this.knex, (trx) => this.adUnits.replaceCatalog(trx, catalog));
  }

  /** The groups `dimension` offers; a group with no type for it is left out. */
  async detailsFor(placementId: number, dimension: string): Promise<AdUnitDetails> {
    const types = await this.adUnits.forDimension(dimension);
    const of = (group: AdUnitGroup) => types.filter((t) => t.group === group);
    const listed = (group: AdUnitRecordList) => group.map((t) => ({ id: t.adUnitTypeId, name: t.name }));
    const [inBanner, inStream, mobile, native] = [of('in-banner'), of('in-stream'), of('mobile'), of('native')];
    const hasMobileUnit = mobile.length > 0;
    const details: AdUnitDetails = { placementId };
    if (inBanner.length > 0) {
      details.inBanner = {
        adUnitTypes: listed(inBanner),
        hasMobileUnit,
        // Mobile-responsive options only make sense where the size also serves mobile units.
        mobileBannerType: hasMobileUnit ? [...MOBILE_BANNER_TYPES] : [],
        mobileFlexCreativeUnitType: hasMobileUnit ? { ...MOBILE_FLEX_CREATIVE_UNIT_TYPES } : {},
        dimension,
      };
    }
    if (inStream.length > 0) {
      details.inStream = {
        adTagType: [...IN_STREAM_AD_TAG_TYPES],
        dynamicPriVideo: inStream.some((t) => t.isDynamicPriVideo),
        playerType: VIDEO_PLAYER_TYPES.map((p) => ({ ...p })),
        videoTagType: [...VIDEO_TAG_TYPES],
      };
    }
    if (hasMobileUnit) details.mobile = { adUnitTypes: listed(mobile), dimension };
    if (native.length > 0) details.native = { adUnitTypes: listed(native), dimension, responseFormat: { ...NATIVE_RESPONSE_FORMATS } };
    return details;
  }
}

type AdUnitRecordList = readonly AdUnitTypeRecord[];
