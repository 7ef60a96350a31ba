/**
 * Values of the channels-plans domain that the gateway and the service both need: enumerations,
 * field bounds and event contracts. Declared here once so the edge schema and the service's own
 * re-check cannot disagree.
 */

import { defineFields, type FieldUpdateInput } from './fields';

export const MEDIA_CHANNEL_TYPES = ['On-site', 'Off-site', 'Social', 'In-store/DOOH', 'Hybrid'] as const;
export type MediaChannelType = (typeof MEDIA_CHANNEL_TYPES)[number];

/** Stored states of a live channel. A soft-deleted channel reads as `Deleted`. */
export const MEDIA_CHANNEL_STATUSES = ['Active', 'Inactive'] as const;
export type MediaChannelStatus = (typeof MEDIA_CHANNEL_STATUSES)[number];
export const MEDIA_CHANNEL_DELETED_STATUS = 'Deleted';

/** The template-campaign list shows the lifecycle words of the interface's state table. */
export const TEMPLATE_CAMPAIGN_CHANNEL_STATUS: Readonly<Record<string, string>> = { Active: 'Enabled', Inactive: 'Disabled', Deleted: 'Deleted' };

export const MEDIA_CHANNEL_NAME_MAX = 200;
export const AD_SERVER_ID_MAX = 64;
/** Serialized size cap of additionalConfiguration, so one channel cannot bloat every list response. */
export const ADDITIONAL_CONFIGURATION_MAX_BYTES = 16 * 1024;
/**
 * Nesting cap of free-form JSON objects (objects and arrays; the outermost counts as 1): deep enough
 * for any real setting, far from a stack overflow, and inside MariaDB's JSON limit (32 levels
 * counting the scalar leaves), which would otherwise fail the insert.
 */
export const FREE_FORM_JSON_MAX_DEPTH = 16;

export const AD_SERVER_KINDS = ['onsite-retail-media', 'display', 'video', 'social', 'dooh'] as const;
export type AdServerKind = (typeof AD_SERVER_KINDS)[number];
export const ONSITE_AD_SERVER_KIND: AdServerKind = 'onsite-retail-media';

export const RETAIL_CAMPAIGN_STATUSES = ['DRAFT', 'ACTIVE', 'PAUSED', 'ARCHIVED'] as const;
export type RetailCampaignStatus = (typeof RETAIL_CAMPAIGN_STATUSES)[number];
export const RETAIL_CAMPAIGN_NAME_MAX = 200;

/**
 * A retail campaign's fields, declared once: the gateway's schemas, the proto mapping, the record
 * and the repository's columns derive from this table (docs/architecture.md, "Adding a field").
 * New campaigns start in DRAFT (the column's default); `status` changes only by an allowed move.
 */
export const RETAIL_CAMPAIGN_FIELDS = defineFields({
  retailCampaignId: { kind: 'int', column: 'retail_campaign_id' },
  accountId: { kind: 'int', column: 'account_id', hidden: true },
  campaignName: { kind: 'string', column: 'campaign_name', minLength: 1, maxLength: RETAIL_CAMPAIGN_NAME_MAX, trim: true, create: 'required', update: true },
  templateIdx: {
    kind: 'int',
    column: 'template_idx',
    minimum: 1,
    nullable: true,
    create: 'optional',
    description: 'The retail template the campaign is built from; the templates service must let the account use it.',
  },
  isAdGroupCampaign: { kind: 'bool', column: 'is_ad_group_campaign', create: 'optional', default: false },
  isSbt: { kind: 'bool', column: 'is_sbt', create: 'optional', default: false },
  status: { kind: 'enum', column: 'status', values: RETAIL_CAMPAIGN_STATUSES, update: true },
  createdAt: { kind: 'timestamp', column: 'created_at', json: 'createdTime' },
  updatedAt: { kind: 'timestamp', column: 'updated_at', json: 'updatedTime' },
});

/**
 * Allowed status moves: DRAFT -> ACTIVE, ACTIVE <-> PAUSED, ACTIVE or PAUSED -> ARCHIVED, nothing
 * out of ARCHIVED. Setting the current status again is not a move and is always accepted.
 */
export const RETAIL_CAMPAIGN_TRANSITIONS: Readonly<Record<RetailCampaignStatus, readonly RetailCampaignStatus[]>> = {
  DRAFT: ['ACTIVE'],
  ACTIVE: ['PAUSED', 'ARCHIVED'],
  PAUSED: ['ACTIVE', 'ARCHIVED'],
  ARCHIVED: [],
};

/** JetStream stream of channels-plans domain events and the subjects on it (before NATS_PREFIX). */
export const CHANNELS_PLANS_EVENTS_STREAM = { name: 'CHANNELS_PLANS_EVENTS', subjects: ['channels-plans.>'], maxAgeMs: 7 * 24 * 3600_000 };

export type MediaChannelEventType = 'created' | 'updated' | 'deleted';
export const mediaChannelEventSubject = (type: MediaChannelEventType) => `channels-plans.media-channel.${type}`;

/** Event payloads carry ids only: never configuration or keys. */
export interface MediaChannelEventPayload {
  type: `media-channel.${MediaChannelEventType}`;
  orgId: string;
  idx: number;
  occurredAt: string;
}

/** Ad groups of an ad-group campaign: names are unique per campaign. */
export const AD_GROUP_NAME_MAX = 200;

/**
 * A creative size as `<width>x<height>`, each 1 to 99999 pixels without leading zeros: the same
 * spelling the admin API accepts for an org's dimension whitelist, so a whitelisted value matches
 * the request's exactly.
 */
export const DIMENSION_PATTERN = '^[1-9][0-9]{0,4}x[1-9][0-9]{0,4}$';
export const DIMENSION_MAX_LENGTH = 11;
/** Sizes one auto media plan may ask for; each distinct size becomes one placement. */
export const AUTO_MEDIA_PLAN_DIMENSIONS_MAX = 50;
export const MEDIA_PLAN_NAME_MAX = 200;

/** Top-level fields of a media plan read that `fields` may select. */
export const MEDIA_PLAN_FIELDS = ['mediaPlanId', 'mediaPlanName', 'adServers'] as const;
export type MediaPlanField = (typeof MEDIA_PLAN_FIELDS)[number];
/** Length cap of the `fields` query parameter: room for every name twice over, nothing like a body. */
export const MEDIA_PLAN_FIELDS_PARAM_MAX = 200;

/**
 * Ad-unit type of the placements an auto media plan creates, by the kind of the channel's ad
 * server: sized display units everywhere except video (in-stream player slots) and digital out of
 * home screens.
 */
export const AUTO_PLACEMENT_AD_UNIT_TYPE: Readonly<Record<AdServerKind, string>> = {
  'onsite-retail-media': 'display',
  display: 'display',
  video: 'in-stream-video',
  social: 'display',
  dooh: 'dooh-screen',
};

// ---- Placements of a media plan and the ad-unit catalog behind their ad-unit details (shared with the tagging service's tag bodies). ----

/** Names of the placements and sites of a media plan (trimmed, unique per site and per plan and ad server). */
export const MEDIA_PLAN_PLACEMENT_NAME_MAX = 200;
export const MEDIA_PLAN_SITE_NAME_MAX = 200;

/**
 * A placement id as the API spells it: a string of decimal digits without a leading zero, at most
 * 15 of them, so every accepted id is an exact JS number on its way to the int64 field it feeds.
 */
export const PLACEMENT_ID_PATTERN = '^[1-9][0-9]{0,14}$';
export const PLACEMENT_ID_MAX_LENGTH = 15;

/** Length cap of each string parameter (a macro such as `${GDPR_CONSENT_755}` fits many times over). */
export const PLACEMENT_PARAM_STRING_MAX = 200;

/**
 * The ad-server parameters of a placement (its `params` object, one JSON column), declared once:
 * the gateway's update body and answer, the proto mapping and the service's checks derive from it.
 */
export const PLACEMENT_PARAM_FIELDS = defineFields({
  adChoices: { kind: 'bool', update: true },
  ccpa: { kind: 'bool', update: true },
  embeddable: { kind: 'bool', update: true },
  gdprMacro: { kind: 'bool', update: true },
  mraid: { kind: 'bool', update: true },
  noScriptTag: { kind: 'bool', update: true },
  privacy: { kind: 'bool', update: true },
  expansionUnit: { kind: 'string', maxLength: PLACEMENT_PARAM_STRING_MAX, update: true, description: 'Expansion unit of expandable creatives' },
  gdprConsentMacro: {
    kind: 'string',
    maxLength: PLACEMENT_PARAM_STRING_MAX,
    update: true,
    description: 'GDPR consent macro of the ad server, e.g. ${GDPR_CONSENT_755}',
  },
  tagType: { kind: 'string', maxLength: PLACEMENT_PARAM_STRING_MAX, update: true, description: 'Tag type the ad server takes' },
});

/** A placement's ad-server parameters as stored and returned: only the ones ever set are present. */
export type PlacementParams = FieldUpdateInput<typeof PLACEMENT_PARAM_FIELDS>;

/** Placement ids one MarkTagsPresent call may name. */
export const MARK_TAGS_PRESENT_MAX = 5000;

/** The groups of the ad-unit catalog; a placement's dimension decides which of them it offers. */
export const AD_UNIT_GROUPS = ['in-banner', 'in-stream', 'mobile', 'native'] as const;
export type AdUnitGroup = (typeof AD_UNIT_GROUPS)[number];

/** In-banner units on a mobile dimension: the banner kinds a mobile-responsive rich-media tag may ask for (`bannerType`). */
export const MOBILE_BANNER_TYPES = ['Standard', 'Sticky', 'Interstitial', 'Expandable'] as const;
/** Flex creative unit types of a mobile-responsive rich-media tag (`mobileFlexCreativeUnitType`), name to code. */
export const MOBILE_FLEX_CREATIVE_UNIT_TYPES: Readonly<Record<string, number>> = { 'Flex Banner': 1, 'Flex Interstitial': 2, 'Flex Scroller': 3 };
/** VAST versions an in-stream tag can be served as. */
export const IN_STREAM_AD_TAG_TYPES = ['VAST 4.2', 'VAST 4.1', 'VAST 4.0', 'VAST 3.0'] as const;
/** Players an in-stream tag is built for (`playerType` of the in-stream tag body). */
export const VIDEO_PLAYER_TYPES: readonly { name: string; version: string }[] = [
  { name: 'Google IMA HTML5', version: '3' },
  { name: 'Video.js', version: '8' },
  { name: 'JW Player', version: '8' },
];
/** How an in-stream tag is delivered (`tagType` of the in-stream tag body): a VAST URL or the VAST XML itself. */
export const VIDEO_TAG_TYPES = ['url', 'xml'] as const;
/** Response formats of a native tag (`additionalParams.responseFormat`), numeric code to name. */
export const NATIVE_RESPONSE_FORMATS: Readonly<Record<string, string>> = { '1': 'JSON', '2': 'OpenRTB Native 1.2', '3': 'HTML' };
