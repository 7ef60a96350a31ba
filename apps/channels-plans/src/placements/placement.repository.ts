import type { Knex } from 'knex';
import type { AdServerKind } from '@contracts/domain';
import type { ServiceDatabase } from '@platform/mysql';
import type { PlanPlacementRecord, PlanRef } from './placement.model';

interface PlanRow {
  media_plan_id: number;
  media_plan_name: string;
  retail_campaign_id: number;
}

interface PlacementRow {
  placement_id: number;
  placement_name: string;
  site_idx: number;
  site_name: string;
  dimension: string;
  ad_unit_type: string;
  is_tag_present: boolean;
  ad_server_id: string;
  ad_server_name: string;
  kind: AdServerKind;
  params: string | null;
}

// Peers read a plan's placements on every tag download and export: constant statements, prepared once.
const PLAN_SQL = 'SELECT media_plan_id, media_plan_name, retail_campaign_id FROM media_plans WHERE account_id = ? AND media_plan_id = ?';
const PLACEMENT_COLUMNS = `p.placement_id, p.placement_name, p.site_idx, s.site_name, p.dimension, p.ad_unit_type, p.is_tag_present,
  s.ad_server_id, a.ad_server_name, a.kind, p.params`;
const PLACEMENT_FROM = 'placements p JOIN media_plan_sites s ON s.site_idx = p.site_idx JOIN ad_servers a ON a.ad_server_id = s.ad_server_id';
const PLAN_PLACEMENTS_SQL = `SELECT ${PLACEMENT_COLUMNS} FROM ${PLACEMENT_FROM} WHERE p.media_plan_id = ? ORDER BY p.placement_id`;
const PLACEMENT_SQL = `SELECT ${PLACEMENT_COLUMNS} FROM ${PLACEMENT_FROM} WHERE p.media_plan_id = ? AND p.placement_id = ?`;

const toPlacement = (row: PlacementRow): PlanPlacementRecord => ({
  placementId: Number(row.placement_id),
  placementName: row.placement_name,
  siteIdx: Number(row.site_idx),
  siteName: row.site_name,
  dimension: row.dimension,
  adUnitType: row.ad_unit_type,
  isTagPresent: Boolean(row.is_tag_present),
  adServerId: row.ad_server_id,
  adServerName: row.ad_server_name,
  adServerKind: row.kind,
  // JSON columns read as text (jsonStrings): handed on as stored, `{}` for none.
  paramsJson: row.params ?? '{}',
});

/** Placements of media plans, with their sites and ad servers; the only place their SQL is written. */
export class PlacementRepository {
  constructor(private readonly db: ServiceDatabase) {}

  async findPlan(accountId: number, mediaPlanId: number): Promise<PlanRef | undefined> {
    const [row] = await this.db.execute<PlanRow>(PLAN_SQL, [accountId, mediaPlanId]);
    return row && { mediaPlanId: Number(row.media_plan_id), mediaPlanName: row.media_plan_name, retailCampaignId: Number(row.retail_campaign_id) };
  }

  /** Every placement of the plan, in placement id order. */
  async listForPlan(mediaPlanId: number): Promise<PlanPlacementRecord[]> {
    return (await this.db.execute<PlacementRow>(PLAN_PLACEMENTS_SQL, [mediaPlanId])).map(toPlacement);
  }

  async find(mediaPlanId: number, placementId: number): Promise<PlanPlacementRecord | undefined> {
    const [row] = await this.db.execute<PlacementRow>(PLACEMENT_SQL, [mediaPlanId, placementId]);
    return row && toPlacement(row);
  }

  /** Which of `placementIds` are placements of the plan, their rows locked until `trx` ends. */
  async lockInPlan(trx: Knex.Transaction, mediaPlanId: number, placementIds: readonly number[]): Promise<number[]> {
    const rows: { placement_id: number }[] = await trx('placements')
      .select('placement_id')
      .where({ media_plan_id: mediaPlanId })
      .whereIn('placement_id', [...placementIds])
      .forUpdate();
    return rows.map((row) => Number(row.placement_id));
  }

  async markTagsPresent(trx: Knex.Transaction, mediaPlanId: number, placementIds: readonly number[]): Promise<void> {
    await trx('placements')
      .where({ media_plan_id: mediaPlanId, is_tag_present: false })
      .whereIn('placement_id', [...placementIds])
      .update({ is_tag_present: true });
  }
}
