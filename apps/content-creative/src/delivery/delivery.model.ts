import type { DeliveryEventType, DeliveryGroupBy } from '@contracts/domain';

/** What the ad server counted: one value per delivery event type. */
export interface DeliveryCounts {
  impressions: number;
  clicks: number;
  starts: number;
  firstQuartile: number;
  midpoint: number;
  thirdQuartile: number;
  completes: number;
  mutes: number;
  unmutes: number;
  skips: number;
}

/** The count each delivery event type adds one to. */
export const COUNT_OF_EVENT: Readonly<Record<DeliveryEventType, keyof DeliveryCounts>> = {
  impression: 'impressions',
  click: 'clicks',
  start: 'starts',
  firstQuartile: 'firstQuartile',
  midpoint: 'midpoint',
  thirdQuartile: 'thirdQuartile',
  complete: 'completes',
  mute: 'mutes',
  unmute: 'unmutes',
  skip: 'skips',
};

export const COUNT_NAMES = Object.values(COUNT_OF_EVENT);

export const zeroCounts = (): DeliveryCounts => ({
  impressions: 0,
  clicks: 0,
  starts: 0,
  firstQuartile: 0,
  midpoint: 0,
  thirdQuartile: 0,
  completes: 0,
  mutes: 0,
  unmutes: 0,
  skips: 0,
});

/** The key of one daily count: what an event is counted under. */
export interface DeliveryCountKey {
  accountId: number;
  retailCampaignId: number;
  /** yyyy-mm-dd, the UTC date the event occurred on. */
  day: string;
  placementId: number;
  mediaPlanId: number;
  creative: string;
  segment: string;
}

/** A delivery event as the fold uses it (decoded and checked from the ad server's DeliveryEvent). */
export interface DeliveryEventRecord extends DeliveryCountKey {
  id: string;
  type: DeliveryEventType;
}

/** What one fold adds to one daily count. */
export interface DeliveryCountDelta extends DeliveryCountKey {
  counts: DeliveryCounts;
}

/** A report request after its checks and defaults. */
export interface DeliveryQuery {
  accountId: number;
  retailCampaignId: number;
  from: string;
  to: string;
  groupBy: DeliveryGroupBy[];
  offset: number;
  limit: number;
}

/** One group of a report: the keys it groups by are set. */
export interface DeliveryGroup {
  day?: string;
  placementId?: number;
  mediaPlanId?: number;
  creative?: string;
  segment?: string;
  counts: DeliveryCounts;
}

export interface DeliveryPage {
  groups: DeliveryGroup[];
  totals: DeliveryCounts;
  /** Groups in the period. */
  total: number;
}

export type DeliveryCountsWithCtr = DeliveryCounts & { ctr: number };

export interface DeliveryReport {
  from: string;
  to: string;
  groupBy: DeliveryGroupBy[];
  rows: (Omit<DeliveryGroup, 'counts'> & { counts: DeliveryCountsWithCtr })[];
  totals: DeliveryCountsWithCtr;
  total: number;
}

/** What one fold did: events counted, and events whose id had been counted before (or repeated in the batch). */
export interface FoldOutcome {
  counted: number;
  duplicates: number;
}
