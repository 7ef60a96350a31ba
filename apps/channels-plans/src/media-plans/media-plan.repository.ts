import type { Knex } from 'knex';
import type { ServiceDatabase } from '@platform/mysql';
import type { MediaPlanAdServerRecord, MediaPlanRecord, NewAutoMediaPlan } from './media-plan.model';

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

// The plan read runs these on every call: constant statements, prepared once.
const FIND_SQL = 'SELECT media_plan_id, media_plan_name FROM media_plans WHERE account_id = ? AND media_plan_id = ?';
const AD_SERVERS_SQL = `SELECT s.ad_server_id, a.ad_server_name, a.kind FROM media_plan_sites s LEFT JOIN ad_servers a ON a.ad_server_id = s.ad_server_id
  WHERE s.media_plan_id = ? GROUP BY s.ad_server_id, a.ad_server_name, a.kind ORDER BY MIN(s.site_idx)`;

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
}
