/**
 * Values of the channels-plans domain that the gateway and the service both need: enumerations,
 * field bounds and event contracts. Declared here once so the edge schema and the service's own
 * re-check cannot disagree.
 */

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
