import { createHash } from 'node:crypto';
import type { TrackerType } from '@contracts/domain';
import type { Knex } from 'knex';
import type { ServiceDatabase } from '@platform/mysql';
import type { NewTracker, StoredTracker } from './tracker.model';

interface TrackerRow {
  site_idx: number;
  placement_id: number;
  tracker_type: TrackerType;
  value: string;
}

const PLAN_SQL = 'SELECT site_idx, placement_id, tracker_type, value FROM trackers WHERE account_id = ? AND media_plan_id = ? ORDER BY tracker_id';
const TYPES_SQL = 'SELECT DISTINCT tracker_type FROM trackers WHERE account_id = ? AND campaign_id = ?';

export class TrackerRepository {
  constructor(private readonly db: ServiceDatabase) {}

  async ofPlan(accountId: number, mediaPlanId: number): Promise<StoredTracker[]> {
    const rows = await this.db.execute<TrackerRow>(PLAN_SQL, [accountId, mediaPlanId]);
    return rows.map((row) => ({ siteIdx: Number(row.site_idx), placementId: Number(row.placement_id), trackerType: row.tracker_type, value: row.value }));
  }

  async typesOf(accountId: number, campaignId: number): Promise<TrackerType[]> {
    const rows = await this.db.execute<{ tracker_type: TrackerType }>(TYPES_SQL, [accountId, campaignId]);
    return rows.map((row) => row.tracker_type);
  }

  /** A value already stored for the placement and field stays one row (the unique index decides, not a pre-read). */
  async append(trx: Knex.Transaction, trackers: readonly NewTracker[]): Promise<void> {
    if (trackers.length === 0) return;
    await trx('trackers')
      .insert(
        trackers.map((t) => ({
          account_id: t.accountId,
          campaign_id: t.campaignId,
          media_plan_id: t.mediaPlanId,
          site_idx: t.siteIdx,
          placement_id: t.placementId,
          tracker_type: t.trackerType,
          value: t.value,
          value_hash: createHash('sha256').update(t.value).digest(),
        })),
      )
      .onConflict()
      .ignore();
  }
}
