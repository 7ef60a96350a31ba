import type { Knex } from 'knex';
import type { DeliveryGroupBy } from '@contracts/domain';
import type { ServiceDatabase } from '@platform/mysql';
import { COUNT_NAMES, type DeliveryCountDelta, type DeliveryCounts, type DeliveryGroup, type DeliveryPage, type DeliveryQuery } from './delivery.model';

/** The column of each count. */
const COUNT_COLUMNS: Readonly<Record<keyof DeliveryCounts, string>> = {
  impressions: 'impressions',
  clicks: 'clicks',
  starts: 'starts',
  firstQuartile: 'first_quartile',
  midpoint: 'midpoint',
  thirdQuartile: 'third_quartile',
  completes: 'completes',
  mutes: 'mutes',
  unmutes: 'unmutes',
  skips: 'skips',
};

const KEY_COLUMNS = ['account_id', 'retail_campaign_id', 'day', 'placement_id', 'media_plan_id', 'creative', 'segment'] as const;

/** The columns each group key reads (a placement belongs to one media plan, so it brings its plan). */
const GROUP_COLUMNS: Readonly<Record<DeliveryGroupBy, string[]>> = {
  day: ['day'],
  placement: ['placement_id', 'media_plan_id'],
  creative: ['creative'],
  segment: ['segment'],
};

const COUNT_UPSERT = (() => {
  const columns = [...KEY_COLUMNS, ...COUNT_NAMES.map((name) => COUNT_COLUMNS[name])];
  const row = `(${columns.map(() => '?').join(', ')})`;
  const updates = COUNT_NAMES.map((name) => `${COUNT_COLUMNS[name]} = ${COUNT_COLUMNS[name]} + VALUES(${COUNT_COLUMNS[name]})`).join(', ');
  return (rows: number) =>
    `INSERT INTO delivery_daily_counts (${columns.join(', ')}) VALUES ${Array(rows).fill(row).join(', ')} ON DUPLICATE KEY UPDATE ${updates}`;
})();

const placeholders = (n: number) => Array(n).fill('?').join(', ');

type SumRow = Record<string, string | number | null>;

const countsOf = (row: SumRow): DeliveryCounts =>
  Object.fromEntries(COUNT_NAMES.map((name) => [name, Number(row[COUNT_COLUMNS[name]] ?? 0)])) as unknown as DeliveryCounts;

export class DeliveryRepository {
  constructor(private readonly db: ServiceDatabase) {}

  /**
   * Records the ids as counted by this batch and answers those that were not counted before. An id
   * another transaction holds uncommitted makes this wait for it: once it commits the id is not new.
   */
  async markSeen(trx: Knex.Transaction, ids: string[], batchId: number): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const sorted = [...ids].sort();
    await trx.raw(
      `INSERT IGNORE INTO delivery_events_seen (event_id, batch_id) VALUES ${sorted.map(() => '(?, ?)').join(', ')}`,
      sorted.flatMap((id) => [id, batchId]),
    );
    const [rows] = (await trx.raw(`SELECT event_id FROM delivery_events_seen WHERE batch_id = ? AND event_id IN (${placeholders(sorted.length)})`, [
      batchId,
      ...sorted,
    ])) as [{ event_id: string }[]];
    return new Set(rows.map((row) => row.event_id));
  }

  /** Adds to the daily counts, one statement; rows in key order so concurrent folds lock in the same order. */
  async addCounts(trx: Knex.Transaction, deltas: DeliveryCountDelta[]): Promise<void> {
    if (deltas.length === 0) return;
    const bindings = deltas.flatMap((d) => [
      d.accountId,
      d.retailCampaignId,
      d.day,
      d.placementId,
      d.mediaPlanId,
      d.creative,
      d.segment,
      ...COUNT_NAMES.map((name) => d.counts[name]),
    ]);
    await trx.raw(COUNT_UPSERT(deltas.length), bindings);
  }

  /** Deletes at most `limit` ids counted more than `retentionSeconds` ago (by the database's clock); answers how many. */
  async purgeSeen(retentionSeconds: number, limit: number): Promise<number> {
    const [result] = (await this.db.knex.raw('DELETE FROM delivery_events_seen WHERE seen_at < NOW(3) - INTERVAL ? SECOND LIMIT ?', [
      retentionSeconds,
      limit,
    ])) as [{ affectedRows: number }];
    return result.affectedRows;
  }

  /** One page of groups of the campaign's counts in the period, in key order, with the totals and the number of groups. */
  async report(query: DeliveryQuery): Promise<DeliveryPage> {
    const knex = this.db.knex;
    const keys = query.groupBy.flatMap((g) => GROUP_COLUMNS[g]);
    const sums = COUNT_NAMES.map((name) => knex.raw('SUM(??) AS ??', [COUNT_COLUMNS[name], COUNT_COLUMNS[name]]));
    const grouped = () =>
      knex('delivery_daily_counts')
        .where({ account_id: query.accountId, retail_campaign_id: query.retailCampaignId })
        .whereBetween('day', [query.from, query.to])
        .select(keys.map((key) => (key === 'day' ? knex.raw("DATE_FORMAT(day, '%Y-%m-%d') AS day") : key)))
        .select(sums)
        .groupBy(keys);
    const [pageRows, summaryRows] = await Promise.all([
      grouped()
        .orderBy(keys.map((column) => ({ column })))
        .limit(query.limit)
        .offset(query.offset) as Promise<SumRow[]>,
      knex
        .from(grouped().as('g'))
        .select(knex.raw('COUNT(*) AS `groups`'))
        .select(COUNT_NAMES.map((name) => knex.raw('SUM(??) AS ??', [`g.${COUNT_COLUMNS[name]}`, COUNT_COLUMNS[name]]))) as Promise<SumRow[]>,
    ]);
    const summary = summaryRows[0] ?? {};
    return {
      groups: pageRows.map((row) => toGroup(row, query.groupBy)),
      totals: countsOf(summary),
      total: Number(summary['groups'] ?? 0),
    };
  }
}

function toGroup(row: SumRow, groupBy: DeliveryGroupBy[]): DeliveryGroup {
  const group: DeliveryGroup = { counts: countsOf(row) };
  if (groupBy.includes('day')) group.day = String(row['day']);
  if (groupBy.includes('placement')) {
    group.placementId = Number(row['placement_id']);
    group.mediaPlanId = Number(row['media_plan_id']);
  }
  if (groupBy.includes('creative')) group.creative = String(row['creative']);
  if (groupBy.includes('segment')) group.segment = String(row['segment']);
  return group;
}
