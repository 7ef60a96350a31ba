import type { Knex } from 'knex';
import type { AdServerKind } from '@contracts/domain';
import type { PageWindow, ServiceDatabase } from '@platform/mysql';
import type { LockedPlacement, PlacementChanges, PlanPlacementRecord, PlanRef } from './placement.model';

/** The unique index that makes a placement name taken within its site. */
export const UNIQUE_PLACEMENT_NAME = 'uq_placements_site_name';

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
const PLAN_PLACEMENTS_PAGE_SQL = `${PLAN_PLACEMENTS_SQL} LIMIT ? OFFSET ?`;

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

  /** One page of the plan's placements, in placement id order (the media plan read). */
  async pageForPlan(mediaPlanId: number, window: PageWindow): Promise<PlanPlacementRecord[]> {
    return (await this.db.execute<PlacementRow>(PLAN_PLACEMENTS_PAGE_SQL, [mediaPlanId, window.limit, window.offset])).map(toPlacement);
  }

  /** The placement as the transaction changing it sees it: the audit trail's before and after. */
  async findForChange(trx: Knex.Transaction, mediaPlanId: number, placementId: number): Promise<PlanPlacementRecord | undefined> {
    const [rows] = (await trx.raw(PLACEMENT_SQL, [mediaPlanId, placementId])) as [PlacementRow[]];
    return rows[0] && toPlacement(rows[0]);
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

  /**
   * The plan's site of that name on that ad server, created when missing. The unique index decides
   * between concurrent creators; the no-op update leaves an existing site as it is.
   */
  async siteFor(trx: Knex.Transaction, mediaPlanId: number, adServerId: string, siteName: string): Promise<{ siteIdx: number; siteName: string }> {
    await trx('media_plan_sites').insert({ media_plan_id: mediaPlanId, ad_server_id: adServerId, site_name: siteName }).onConflict().merge(['media_plan_id']);
    const row: { site_idx: number; site_name: string } = await trx('media_plan_sites')
      .select('site_idx', 'site_name')
      .where({ media_plan_id: mediaPlanId, ad_server_id: adServerId, site_name: siteName })
      .first();
    return { siteIdx: Number(row.site_idx), siteName: row.site_name };
  }

  async insert(
    trx: Knex.Transaction,
    placement: { mediaPlanId: number; siteIdx: number; placementName: string; dimension: string; adUnitType: string },
  ): Promise<number> {
    const [id] = await trx('placements').insert({
      media_plan_id: placement.mediaPlanId,
      site_idx: placement.siteIdx,
      placement_name: placement.placementName,
      dimension: placement.dimension,
      ad_unit_type: placement.adUnitType,
    });
    return Number(id);
  }

  /** The placement with its site, locked until `trx` ends. */
  async lock(trx: Knex.Transaction, mediaPlanId: number, placementId: number): Promise<LockedPlacement | undefined> {
    const row:
      | {
          placement_id: number;
          site_idx: number;
          site_name: string;
          ad_server_id: string;
          placement_name: string;
          dimension: string;
          ad_unit_type: string;
          params: string | null;
        }
      | undefined = await trx('placements as p')
      .join('media_plan_sites as s', 's.site_idx', 'p.site_idx')
      .select('p.placement_id', 'p.site_idx', 's.site_name', 's.ad_server_id', 'p.placement_name', 'p.dimension', 'p.ad_unit_type', 'p.params')
      .where({ 'p.media_plan_id': mediaPlanId, 'p.placement_id': placementId })
      .forUpdate()
      .first();
    return (
      row && {
        placementId: Number(row.placement_id),
        siteIdx: Number(row.site_idx),
        siteName: row.site_name,
        adServerId: row.ad_server_id,
        placementName: row.placement_name,
        dimension: row.dimension,
        adUnitType: row.ad_unit_type,
        paramsJson: row.params ?? '{}',
      }
    );
  }

  async update(trx: Knex.Transaction, placementId: number, changes: PlacementChanges): Promise<void> {
    const columns: Record<string, unknown> = {};
    if (changes.siteIdx !== undefined) columns.site_idx = changes.siteIdx;
    if (changes.placementName !== undefined) columns.placement_name = changes.placementName;
    if (changes.dimension !== undefined) columns.dimension = changes.dimension;
    if (changes.adUnitType !== undefined) columns.ad_unit_type = changes.adUnitType;
    if (changes.paramsJson !== undefined) columns.params = changes.paramsJson;
    if (Object.keys(columns).length > 0) await trx('placements').where({ placement_id: placementId }).update(columns);
  }

  /** Removes a site no placement is on any more, so the plan lists no ad server without placements. */
  async deleteSiteIfEmpty(trx: Knex.Transaction, siteIdx: number): Promise<void> {
    await trx('media_plan_sites')
      .where({ site_idx: siteIdx })
      .whereNotExists(trx('placements').select(trx.raw('1')).where({ site_idx: siteIdx }))
      .delete();
  }
}
