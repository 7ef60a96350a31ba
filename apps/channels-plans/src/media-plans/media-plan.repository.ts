import type { Knex } from 'knex';
import type { PageWindow, ServiceDatabase } from '@platform/mysql';
import type { MediaPlanAdServerRecord, MediaPlanRecord, NewAutoMediaPlan, PlacementRecord } from './media-plan.model';

/** The unique index that makes one auto plan per campaign, channel and dimension set. */
export const UNIQUE_AUTO_DIMENSION_SET = 'uq_media_plans_auto_dimension_set';

interface MediaPlanRow {
  media_plan_id: number;
  media_plan_name: string;
}

interface AdServerRow {
  ad_server_id: string;
  ad_server_name: string | null;
  kind: string | null;
}

interface PlacementRow {
  placement_id: number;
  placement_name: string;
  site_idx: number;
  site_name: string;
  dimension: string;
  ad_unit_type: string;
  ad_server_id: string;
  ad_server_name: string | null;
  is_tag_present: boolean;
  params: string | null;
}

// The plan read runs these three on every call: constant statements, prepared once.
const FIND_SQL = 'SELECT media_plan_id, media_plan_name FROM media_plans WHERE account_id = ? AND media_plan_id = ?';
const AD_SERVERS_SQL = `SELECT s.ad_server_id, a.ad_server_name, a.kind FROM media_plan_sites s LEFT JOIN ad_servers a ON a.ad_server_id = s.ad_server_id
  WHERE s.media_plan_id = ? GROUP BY s.ad_server_id, a.ad_server_name, a.kind ORDER BY MIN(s.site_idx)`;
const PLACEMENTS_SQL = `SELECT p.placement_id, p.placement_name, p.site_idx, s.site_name, p.dimension, p.ad_unit_type, s.ad_server_id, a.ad_server_name,
  p.is_tag_present, p.params
  FROM placements p JOIN media_plan_sites s ON s.site_idx = p.site_idx LEFT JOIN ad_servers a ON a.ad_server_id = s.ad_server_id
  WHERE p.media_plan_id = ? ORDER BY p.placement_id LIMIT ? OFFSET ?`;

export class MediaPlanRepository {
  constructor(private readonly db: ServiceDatabase) {}

  async findAuto(
    trx: Knex | Knex.Transaction,
    key: { accountId: number; retailCampaignId: number; mediaChannelIdx: number; dimensionSet: string },
  ): Promise<number | undefined> {
    const row: { media_plan_id: number } | undefined = await trx('media_plans')
      .select('media_plan_id')
      .where({
        account_id: key.accountId,
        retail_campaign_id: key.retailCampaignId,
        media_channel_idx: key.mediaChannelIdx,
        auto_dimension_set: key.dimensionSet,
      })
      .first();
    return row && Number(row.media_plan_id);
  }

  /** The plan, its site and its placements; the caller's transaction keeps them all or none. */
  async insertAuto(trx: Knex.Transaction, plan: NewAutoMediaPlan): Promise<number> {
    const [mediaPlanId] = await trx('media_plans').insert({
      account_id: plan.accountId,
      retail_campaign_id: plan.retailCampaignId,
      media_channel_idx: plan.mediaChannelIdx,
      media_plan_name: plan.mediaPlanName,
      auto_dimension_set: plan.dimensionSet,
    });
    const [siteIdx] = await trx('media_plan_sites').insert({ media_plan_id: mediaPlanId, ad_server_id: plan.site.adServerId, site_name: plan.site.siteName });
    await trx('placements').insert(
      plan.placements.map((p) => ({
        media_plan_id: mediaPlanId,
        site_idx: siteIdx,
        placement_name: p.placementName,
        dimension: p.dimension,
        ad_unit_type: p.adUnitType,
      })),
    );
    return Number(mediaPlanId);
  }

  async find(accountId: number, mediaPlanId: number): Promise<MediaPlanRecord | undefined> {
    const [row] = await this.db.execute<MediaPlanRow>(FIND_SQL, [accountId, mediaPlanId]);
    return row && { mediaPlanId: Number(row.media_plan_id), mediaPlanName: row.media_plan_name };
  }

  /** The ad servers the plan's sites are on, in the order their first site was added. */
  async adServers(mediaPlanId: number): Promise<MediaPlanAdServerRecord[]> {
    const rows = await this.db.execute<AdServerRow>(AD_SERVERS_SQL, [mediaPlanId]);
    return rows.map((row) => ({ adServerId: row.ad_server_id, adServerName: row.ad_server_name, adServerKind: row.kind ?? '' }));
  }

  async placements(mediaPlanId: number, window: PageWindow): Promise<PlacementRecord[]> {
    const rows = await this.db.execute<PlacementRow>(PLACEMENTS_SQL, [mediaPlanId, window.limit, window.offset]);
    return rows.map((row) => ({
      placementId: Number(row.placement_id),
      placementName: row.placement_name,
      siteIdx: Number(row.site_idx),
      siteName: row.site_name,
      dimension: row.dimension,
      adUnitType: row.ad_unit_type,
      adServerId: row.ad_server_id,
      adServerName: row.ad_server_name,
      isTagPresent: Boolean(row.is_tag_present),
      // JSON columns read as text (jsonStrings): handed on as stored, `{}` for none.
      paramsJson: row.params ?? '{}',
    }));
  }
}
