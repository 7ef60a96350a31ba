/**
 * The delivery extension: a retail campaign's daily counts folded from the ad server's delivery events
 * (DELIVERY_STREAM in ./serving). Shared by the gateway's route and content-creative's checks.
 */
export const DELIVERY_REPORT_LIMITS = {
  /** Days a report spans when `from` is not given (ending at `to`, else today, UTC). */
  defaultDays: 30,
  /** The most days one report may span, `from` and `to` included. */
  maxDays: 366,
  /** Decimal places of `ctr` (clicks / impressions). */
  ctrDecimals: 4,
  /** Longest event id, creative and segment a delivery event may carry; a longer one is dead-lettered. */
  eventIdMax: 128,
  creativeMax: 255,
  segmentMax: 255,
} as const;
