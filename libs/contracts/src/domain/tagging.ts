/**
 * Values of tagging-trackers shared by the gateway (request bounds, OpenAPI text) and the service
 * (which re-checks what it stores).
 */

/** A data signal's name as campaigns and tag variable maps name it. */
export const DATA_SIGNAL_MAX = 100;
export const DATA_SIGNAL_PATTERN = '^[A-Za-z][A-Za-z0-9_.-]*$';
/** A macro as an ad server writes it (e.g. `%%PATTERN:store%%`, `${STORE_ID}`); its syntax is checked per ad server. */
export const MACRO_NAME_MAX = 100;
/** The serialized size of a tag variable map's adServerParams. */
export const TAG_AD_SERVER_PARAMS_MAX_BYTES = 4 * 1024;
/** Tag variable maps a campaign may hold. */
export const TAG_VARIABLE_MAPS_PER_CAMPAIGN_MAX = 200;

/** The single-tag kinds: the last path segments of `.../placements/:placementId/tags/<kind>`. */
export const SINGLE_TAG_KINDS = ['rich-media', 'video/in-stream', 'video/in-banner', 'video/mobile/in-web', 'native'] as const;
export type SingleTagKind = (typeof SINGLE_TAG_KINDS)[number];

/** Privacy entry types a tag understands. GDPR entries carry a consent macro naming a numeric vendor id. */
export const PRIVACY_TYPES = ['GDPRv2', 'ccpa', 'gpp'] as const;
export const PRIVACY_ENTRIES_MAX = 3;
export const CONSENT_MACRO_MAX = 64;
/** `${GDPR_CONSENT_<vendor id>}` or `${GPP_STRING_<id>}`: the number is the IAB vendor (or GPP section) id. */
export const GDPR_CONSENT_MACRO_PATTERN = '^\\$\\{GDPR_CONSENT_[1-9][0-9]{0,5}\\}$';
export const GPP_STRING_MACRO_PATTERN = '^\\$\\{GPP_STRING_[1-9][0-9]{0,5}\\}$';

/** dataSignalMap entries per tag, and additionalParams size. */
export const DATA_SIGNAL_MAP_MAX_ENTRIES = 50;
export const ADDITIONAL_PARAMS_MAX_BYTES = 4 * 1024;
export const THIRD_PARTY_SCRIPT_MAX = 4096;
export const TAG_TYPE_MAX = 32;
export const PLAYER_FIELD_MAX = 64;
export const BANNER_TYPE_MAX = 64;

/** The tag CSV's columns, in order. */
export const TAG_CSV_COLUMNS = ['Site Name', 'Placement Id', 'Placement Name', 'Dimension', 'Ad Server', 'Tag Kind', 'Tag'] as const;
/** Rows per page when the gateway streams the tag CSV from the service. */
export const TAG_CSV_PAGE_ROWS = 1000;

/** Tracker fields of the bulk tracker update (`updatePlanTrackers`) and the tracker types a campaign may select. */
export const TRACKER_TYPES = [
  'primaryClickTracker',
  'secondaryClickTracker1',
  'secondaryClickTracker2',
  'bannerImpressionInTagPixelTracker',
  'bannerImpressionOutTagPixelTracker',
  'bannerImpressionInTagScriptTracker',
  'bannerImpressionOutTagScriptTracker',
  'creativeLoadEventTracker',
  'mobileImpressionClickInTagPixelTracker',
  'mobileImpressionClickOutTagPixelTracker',
  'mobileImpressionClickInTagScriptTracker',
  'mobileImpressionClickOutTagScriptTracker',
  'mobileBannerClickTracker',
  'inStreamImpressionTrackers',
  'videoStartViewedTracker',
  'twentyFivePercentVideoViewedTracker',
  'fiftyPercentVideoViewedTracker',
  'seventyFivePercentVideoViewedTracker',
  'hundredPercentVideoViewedTracker',
  'muteVideoViewedTracker',
  'unmuteVideoViewedTracker',
  'inStreamSkipAdTracker',
] as const;
export type TrackerType = (typeof TRACKER_TYPES)[number];
export const TRACKER_VALUE_MAX = 2048;
export const TRACKER_ROWS_MAX = 500;

/** Where each update field's values show in the per-placement tracker record of the tracker read. */
export const TRACKER_RECORD_FIELD: Readonly<Record<TrackerType, string>> = {
  primaryClickTracker: 'primaryClickTracker',
  secondaryClickTracker1: 'secondaryClickTrackers',
  secondaryClickTracker2: 'secondaryClickTrackers',
  bannerImpressionInTagPixelTracker: 'bannerImpressionTrackers',
  bannerImpressionOutTagPixelTracker: 'bannerImpressionOutTagTrackers',
  bannerImpressionInTagScriptTracker: 'bannerImpressionInTagScriptTrackers',
  bannerImpressionOutTagScriptTracker: 'bannerImpressionOutTagScriptTrackers',
  creativeLoadEventTracker: 'creativeLoadEventTracker',
  mobileImpressionClickInTagPixelTracker: 'mobileImpressionClickTrackers',
  mobileImpressionClickOutTagPixelTracker: 'mobileImpressionClickOutTagTrackers',
  mobileImpressionClickInTagScriptTracker: 'mobileImpressionClickInTagScriptTrackers',
  mobileImpressionClickOutTagScriptTracker: 'mobileImpressionClickOutTagScriptTrackers',
  mobileBannerClickTracker: 'mobileBannerClickTracker',
  inStreamImpressionTrackers: 'inStreamImpressionTrackers',
  videoStartViewedTracker: 'videoStartViewedTracker',
  twentyFivePercentVideoViewedTracker: 'twentyFivePercentVideoViewedTracker',
  fiftyPercentVideoViewedTracker: 'fiftyPercentVideoViewedTracker',
  seventyFivePercentVideoViewedTracker: 'seventyFivePercentVideoViewedTracker',
  hundredPercentVideoViewedTracker: 'hundredPercentVideoViewedTracker',
  muteVideoViewedTracker: 'muteVideoViewedTracker',
  unmuteVideoViewedTracker: 'unmuteVideoViewedTracker',
  inStreamSkipAdTracker: 'inStreamSkipAdTracker',
};
export const TRACKER_RECORD_FIELDS: readonly string[] = [...new Set(Object.values(TRACKER_RECORD_FIELD))];
/** Script trackers may be script elements or URLs; every other tracker is an http(s) URL. */
export const isScriptTracker = (type: TrackerType) => type.endsWith('ScriptTracker');
/** Keys of the tracker read's `filters` query (`key=value,...`). */
export const TRACKER_FILTER_KEYS = ['sites_siteId', 'sites_placements_placementId'] as const;
export const TRACKER_FILTERS_MAX = 200;
export const TRACKER_UPDATE_KINDS = ['inline'] as const;
