import type { DecisionGraph } from './content-creative';
import type { ZipEntryLocation } from './storage';

/**
 * Creative delivery: what the ad server reads and what it reports.
 *
 * content-creative compiles, per retail campaign, everything serving needs (placements with their size,
 * content items with the asset rows' fields and exported files, trackers, the decision graphs a tag may
 * name) into one `ServingCampaign` and puts it in the SERVING_SNAPSHOT_BUCKET key-value bucket. Every
 * ad-server replica watches the bucket, so a change is served within seconds and a restarted replica
 * serves from the stored snapshot at once, with no MySQL on the hot path.
 *
 * The ad server publishes one `DeliveryEvent` per impression, click and video event on
 * `delivery.<type>` (DELIVERY_STREAM); content-creative folds them into daily counts that the
 * delivery extension answers.
 */

/** The NATS key-value bucket (before NATS_PREFIX) holding one compiled campaign per key. */
export const SERVING_SNAPSHOT_BUCKET = 'serving_snapshot';
/** The bucket key of one retail campaign's compiled snapshot. */
export const servingSnapshotKey = (retailCampaignId: number) => `campaign.${retailCampaignId}`;
/** Bumped when the shape below changes incompatibly; a replica skips snapshots of another version. */
export const SERVING_SNAPSHOT_VERSION = 1;

/**
 * A file of an export: its path among the account's files, which the gateway serves at
 * `<PUBLIC_BASE_URL>/files/accounts/<accountId>/<path>` (the ad server builds the URL). With `entry`, `path`
 * is the export's zip and the file is that entry of it (`accountZipEntryUrl`): a full png export's stills.
 */
export interface ServingExportFile {
  path: string;
  entry?: ZipEntryLocation;
  width: number;
  height: number;
  /** A video's running time, when the export recorded it. */
  durationSeconds?: number;
}

/** The export formats serving uses: a still for display, a video for VAST. */
export const SERVING_EXPORT_FORMATS = ['png', 'mp4'] as const;
export type ServingExportFormat = (typeof SERVING_EXPORT_FORMATS)[number];

/** One content item of a placement: a content value and what the asset source row says of it. */
export interface ServingItem {
  /** The content value as the content map holds it (a SKU, a category, a creative name). */
  contentValue: string;
  name: string | null;
  imageUrl: string | null;
  price: string | null;
  /** Where a click lands; the campaign's default URL when the row names none. */
  landingUrl: string | null;
  callToAction: string | null;
  /** Exported files of this item on this placement, by format, from the newest completed export of that format that kept them. */
  exports: Partial<Record<ServingExportFormat, ServingExportFile>>;
}

export interface ServingPlacement {
  placementId: number;
  mediaPlanId: number;
  name: string;
  width: number;
  height: number;
  /** onsite-retail-media, display, video, social or dooh. */
  adServerKind: string;
  items: ServingItem[];
  /** The placement's tracker record: field name (bannerImpressionTrackers, primaryClickTracker, ...) to URLs. */
  trackers: Record<string, string[]>;
}

/** A dynamic campaign of the same account, reachable from the retail campaign's tags (see the `dc` tag parameter). */
export interface ServingDynamicCampaign {
  campaignId: number;
  defaultUrl: string;
  graph: DecisionGraph;
}

export interface ServingCampaign {
  version: number;
  compiledAt: string;
  accountId: number;
  retailCampaignId: number;
  campaignName: string;
  /** Only an ACTIVE campaign serves; any other status answers no ad. */
  status: string;
  defaultUrl: string | null;
  /** By placement id. */
  placements: Record<string, ServingPlacement>;
  /** By dynamic campaign id: every dynamic campaign of the account. */
  dynamicCampaigns: Record<string, ServingDynamicCampaign>;
  /**
   * The data signals a tag may carry as `ds_<signal>=value`, by signal name in lower case: the catalog's
   * `<dataSignalName>.<propertyId>` (`weather.temperature`) and `<dataSignalId>.<propertyId>` (`3.temperature`).
   */
  signals: Record<string, ServingSignal>;
}

/** What a tag's data signal is in a decision graph: the evaluator's key and the value's type. */
export interface ServingSignal {
  dataSignalId: number;
  propertyId: string;
  valueType: 'string' | 'number';
}

/** The aliases a catalog property answers to in a tag's query (see ServingCampaign.signals). */
export const servingSignalNames = (dataSignalId: number, dataSignalName: string, propertyId: string): string[] => [
  `${dataSignalName}.${propertyId}`.toLowerCase(),
  `${dataSignalId}.${propertyId}`.toLowerCase(),
];

/** The stream the ad server's events go to (before NATS_PREFIX). */
export const DELIVERY_STREAM = { name: 'DELIVERY', subjects: ['delivery.>'], maxAgeMs: 7 * 24 * 3600_000 };

export const DELIVERY_EVENT_TYPES = [
  'impression',
  'click',
  'start',
  'firstQuartile',
  'midpoint',
  'thirdQuartile',
  'complete',
  'mute',
  'unmute',
  'skip',
] as const;
export type DeliveryEventType = (typeof DELIVERY_EVENT_TYPES)[number];
export const deliveryEventSubject = (type: DeliveryEventType) => `delivery.${type}`;

/** The segment a delivery event counts under when the default creative served (no segment matched, or consent forced it). */
export const DEFAULT_SEGMENT = '(default)';

/** One served event, as published on `delivery.<type>` with `Nats-Msg-Id` = id. Carries no personal data. */
export interface DeliveryEvent {
  /** Unique per event; a redelivered or re-sent event with the same id counts once. */
  id: string;
  type: DeliveryEventType;
  occurredAt: string;
  accountId: number;
  retailCampaignId: number;
  mediaPlanId: number;
  placementId: number;
  /** The content value (or creative master) served. */
  creative: string;
  /** The decision graph's segment served, or DEFAULT_SEGMENT. */
  segment: string;
  /** Whether the request carried consent for personalized serving. */
  personalized: boolean;
}

/** groupBy values of the delivery extension. */
export const DELIVERY_GROUP_BY = ['day', 'placement', 'creative', 'segment'] as const;
export type DeliveryGroupBy = (typeof DELIVERY_GROUP_BY)[number];
