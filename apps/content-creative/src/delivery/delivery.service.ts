import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { DELIVERY_GROUP_BY, DELIVERY_REPORT_LIMITS, DELIVERY_STREAM, MAX_PAGE_LIMIT, MAX_PAGE_OFFSET, type DeliveryGroupBy } from '@contracts/domain';
import { validationFailed, type FieldError } from '@platform/errors';
import type { Logger } from '@platform/logging';
import { withTransaction } from '@platform/mysql';
import type { ChannelsPlansPeer } from '../peers/channels-plans.peer';
import {
  COUNT_OF_EVENT,
  zeroCounts,
  type DeliveryCountDelta,
  type DeliveryCounts,
  type DeliveryCountsWithCtr,
  type DeliveryEventRecord,
  type DeliveryQuery,
  type DeliveryReport,
  type FoldOutcome,
} from './delivery.model';
import type { DeliveryRepository } from './delivery.repository';

/**
 * How long a counted event id is kept: longer than the stream keeps the event, so no delivery of it
 * (a redelivery after an outage, a replay of the stream) can find its id gone.
 */
export const DELIVERY_SEEN_RETENTION_SECONDS = Math.ceil(DELIVERY_STREAM.maxAgeMs / 1000) + 24 * 3600;
/** Ids deleted per statement by the purge, so it never holds many locks at once. */
const PURGE_CHUNK = 10_000;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 24 * 3600_000;

/** yyyy-mm-dd of a UTC time. */
export const utcDay = (time: Date): string => time.toISOString().slice(0, 10);

/** The UTC midnight of a yyyy-mm-dd that names a real calendar date, else undefined (2026-02-30, 2026-13-01). */
function parseDay(value: string): number | undefined {
  const match = DATE.exec(value);
  if (!match) return undefined;
  const time = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return utcDay(new Date(time)) === value ? time : undefined;
}

export const ctrOf = (clicks: number, impressions: number): number => {
  if (impressions <= 0) return 0;
  const scale = 10 ** DELIVERY_REPORT_LIMITS.ctrDecimals;
  return Math.round((clicks / impressions) * scale) / scale;
};

const withCtr = (counts: DeliveryCounts): DeliveryCountsWithCtr => ({ ...counts, ctr: ctrOf(counts.clicks, counts.impressions) });

const keyOf = (d: Omit<DeliveryCountDelta, 'counts'>) =>
  JSON.stringify([d.accountId, d.retailCampaignId, d.day, d.placementId, d.mediaPlanId, d.creative, d.segment]);

export interface DeliveryReportRequest {
  accountId: number;
  retailCampaignId: number;
  from?: string;
  to?: string;
  groupBy?: string;
  offset: number;
  limit: number;
}

/**
 * A retail campaign's delivery: the ad server's events folded into daily counts (each event id once),
 * and the grouped report the delivery extension answers.
 */
export class DeliveryService {
  constructor(
    private readonly knex: Knex,
    private readonly counts: DeliveryRepository,
    private readonly logger: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Counts a batch of events in one transaction: the ids not counted before are recorded and their
   * events added to the daily counts, so a redelivered or re-sent event (same id) adds nothing.
   */
  async fold(events: DeliveryEventRecord[]): Promise<FoldOutcome> {
    const unique = new Map<string, DeliveryEventRecord>();
    for (const event of events) if (!unique.has(event.id)) unique.set(event.id, event);
    const counted = await withTransaction(
      this.knex,
      async (trx) => {
        const fresh = await this.counts.markSeen(trx, [...unique.keys()], batchId());
        const deltas = aggregate([...unique.values()].filter((event) => fresh.has(event.id)));
        await this.counts.addCounts(trx, deltas);
        return fresh.size;
      },
      { logger: this.logger },
    );
    return { counted, duplicates: events.length - counted };
  }

  /** Forgets counted ids past the retention, a chunk at a time; answers how many. */
  async purgeSeen(retentionSeconds = DELIVERY_SEEN_RETENTION_SECONDS): Promise<number> {
    let purged = 0;
    for (;;) {
      const deleted = await this.counts.purgeSeen(retentionSeconds, PURGE_CHUNK);
      purged += deleted;
      if (deleted < PURGE_CHUNK) return purged;
    }
  }

  /** The campaign's delivery in the period, grouped; the campaign must be one of the account (channels-plans' 404 otherwise). */
  async report(request: DeliveryReportRequest, channels: ChannelsPlansPeer): Promise<DeliveryReport> {
    const query = this.checkQuery(request);
    await channels.campaign(query.accountId, query.retailCampaignId);
    const page = await this.counts.report(query);
    return {
      from: query.from,
      to: query.to,
      groupBy: query.groupBy,
      rows: page.groups.map((group) => ({ ...group, counts: withCtr(group.counts) })),
      totals: withCtr(page.totals),
      total: page.total,
    };
  }

  /** The query's rules, re-checked here (the gateway is not the only caller) and its defaults applied. */
  private checkQuery(request: DeliveryReportRequest): DeliveryQuery {
    const errors: FieldError[] = [];
    const day = (parameter: 'from' | 'to', value: string | undefined): number | undefined => {
      if (value === undefined || value === '') return undefined;
      const time = parseDay(value);
      if (time === undefined) {
        errors.push({ parameter, code: 'INVALID_FORMAT', detail: `${parameter} must be a calendar date written yyyy-mm-dd (UTC), such as 2026-03-01.` });
      }
      return time;
    };
    const fromGiven = day('from', request.from);
    const toGiven = day('to', request.to);
    const today = parseDay(utcDay(this.now())) as number;
    const to = toGiven ?? today;
    const from = fromGiven ?? to - (DELIVERY_REPORT_LIMITS.defaultDays - 1) * DAY_MS;
    if (errors.length === 0) {
      if (to < from) {
        errors.push({ parameter: 'to', code: 'OUT_OF_RANGE', detail: `to (${utcDay(new Date(to))}) must not be before from (${utcDay(new Date(from))}).` });
      } else if ((to - from) / DAY_MS + 1 > DELIVERY_REPORT_LIMITS.maxDays) {
        errors.push({
          parameter: 'from',
          code: 'OUT_OF_RANGE',
          detail: `The period from ${utcDay(new Date(from))} to ${utcDay(new Date(to))} spans ${(to - from) / DAY_MS + 1} days; a report spans at most ${DELIVERY_REPORT_LIMITS.maxDays} days.`,
        });
      }
    }
    const groupBy: DeliveryGroupBy[] = [];
    if (request.groupBy === undefined || request.groupBy === '') {
      groupBy.push('day');
    } else {
      for (const item of request.groupBy.split(',')) {
        if (!(DELIVERY_GROUP_BY as readonly string[]).includes(item)) {
          errors.push({
            parameter: 'groupBy',
            code: 'NOT_ALLOWED',
            detail: `groupBy is a comma-separated list of ${DELIVERY_GROUP_BY.join(', ')}; ${JSON.stringify(item)} is not one.`,
          });
        } else if (groupBy.includes(item as DeliveryGroupBy)) {
          errors.push({ parameter: 'groupBy', code: 'DUPLICATE', detail: `groupBy names ${item} twice.` });
        } else {
          groupBy.push(item as DeliveryGroupBy);
        }
      }
    }
    if (!Number.isInteger(request.offset) || request.offset < 0 || request.offset > MAX_PAGE_OFFSET) {
      errors.push({ parameter: 'offset', code: 'OUT_OF_RANGE', detail: `offset must be 0 to ${MAX_PAGE_OFFSET}.` });
    }
    if (!Number.isInteger(request.limit) || request.limit < 1 || request.limit > MAX_PAGE_LIMIT) {
      errors.push({ parameter: 'limit', code: 'OUT_OF_RANGE', detail: `limit must be 1 to ${MAX_PAGE_LIMIT}.` });
    }
    if (errors.length > 0) throw validationFailed(errors, errors.map((e) => e.detail).join(' '));
    return {
      accountId: request.accountId,
      retailCampaignId: request.retailCampaignId,
      from: utcDay(new Date(from)),
      to: utcDay(new Date(to)),
      groupBy,
      offset: request.offset,
      limit: request.limit,
    };
  }
}

/** Sums events per daily count, in key order (the order the upsert locks rows in). */
function aggregate(events: DeliveryEventRecord[]): DeliveryCountDelta[] {
  const byKey = new Map<string, DeliveryCountDelta>();
  for (const event of events) {
    const key = {
      accountId: event.accountId,
      retailCampaignId: event.retailCampaignId,
      day: event.day,
      placementId: event.placementId,
      mediaPlanId: event.mediaPlanId,
      creative: event.creative,
      segment: event.segment,
    };
    const k = keyOf(key);
    let delta = byKey.get(k);
    if (!delta) {
      delta = { ...key, counts: zeroCounts() };
      byKey.set(k, delta);
    }
    delta.counts[COUNT_OF_EVENT[event.type]] += 1;
  }
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, delta]) => delta);
}

/** Tells this fold's ids from those of any other running at the same time (48 random bits). */
const batchId = (): number => randomBytes(6).readUIntBE(0, 6);
