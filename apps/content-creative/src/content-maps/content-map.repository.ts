import type { ContentType } from '@contracts/domain';
import type { Knex } from 'knex';
import { readJsonColumn, writeJsonColumn, type Page, type PageWindow, type ServiceDatabase } from '@platform/mysql';
import type { ContentMapKey, StoredContentMap, StoredPlacement } from './content-map.model';

interface PlacementRow {
  ad_group_id: number;
  ad_group_name: string | null;
  ad_group_status: string | null;
  placement_id: number;
  external_placement_id: string | null;
  placement_name: string | null;
  dimension: string | null;
  site_id: string | null;
  content: string;
}

const toPlacement = (row: PlacementRow): StoredPlacement => ({
  adGroupId: Number(row.ad_group_id),
  adGroupName: row.ad_group_name,
  status: row.ad_group_status,
  placementId: Number(row.placement_id),
  externalPlacementId: row.external_placement_id,
  placementName: row.placement_name,
  dimension: row.dimension,
  siteId: row.site_id,
  content: readJsonColumn<string[]>(row.content) ?? [],
});

const MAP_ID = 'SELECT content_map_id FROM content_maps WHERE account_id = ? AND retail_campaign_id = ? AND media_plan_id = ?';
const HEADER_SQL = `SELECT m.content_type, m.data_service_id, m.lookup_column,
  (SELECT COALESCE(MAX(JSON_LENGTH(p.content)), 0) FROM content_map_placements p WHERE p.content_map_id = m.content_map_id) AS num_of_cards
  FROM content_maps m WHERE m.account_id = ? AND m.retail_campaign_id = ? AND m.media_plan_id = ?`;
const PLACEMENTS_PAGE_SQL = `SELECT p.*, (SELECT COUNT(*) FROM content_map_placements c WHERE c.content_map_id = p.content_map_id) AS total_count
  FROM content_map_placements p WHERE p.content_map_id = (${MAP_ID}) ORDER BY p.position LIMIT ? OFFSET ?`;
const AD_GROUPS_PAGE_SQL = `SELECT ad_group_id, MIN(position) AS first_position,
  (SELECT COUNT(DISTINCT c.ad_group_id) FROM content_map_placements c WHERE c.content_map_id = p.content_map_id) AS total_count
  FROM content_map_placements p WHERE p.content_map_id = (${MAP_ID}) GROUP BY content_map_id, ad_group_id ORDER BY first_position LIMIT ? OFFSET ?`;

const keyParams = (key: ContentMapKey) => [key.accountId, key.retailCampaignId, key.mediaPlanId];

export class ContentMapRepository {
  constructor(private readonly db: ServiceDatabase) {}

  /** Replaces the whole map, in the caller's transaction: a reader sees the old map or the new one, never a mix. */
  async replace(trx: Knex.Transaction, key: ContentMapKey, map: Omit<StoredContentMap, 'numOfCards'>, placements: readonly StoredPlacement[]): Promise<void> {
    const header = {
      account_id: key.accountId,
      retail_campaign_id: key.retailCampaignId,
      media_plan_id: key.mediaPlanId,
      content_type: map.contentType,
      data_service_id: map.dataServiceId,
      lookup_column: map.lookupColumn,
    };
    await trx('content_maps')
      .insert(header)
      .onConflict(['account_id', 'retail_campaign_id', 'media_plan_id'])
      .merge({ ...header, updated_at: trx.raw('CURRENT_TIMESTAMP(3)') });
    const { content_map_id: id }: { content_map_id: number } = await trx('content_maps')
      .where({ account_id: key.accountId, retail_campaign_id: key.retailCampaignId, media_plan_id: key.mediaPlanId })
      .first('content_map_id');
    await trx('content_map_placements').where({ content_map_id: id }).delete();
    const rows = placements.map((p, position) => ({
      content_map_id: id,
      ad_group_id: p.adGroupId,
      ad_group_name: p.adGroupName,
      ad_group_status: p.status,
      placement_id: p.placementId,
      external_placement_id: p.externalPlacementId,
      placement_name: p.placementName,
      dimension: p.dimension,
      site_id: p.siteId,
      content: writeJsonColumn(p.content),
      position,
    }));
    // Batches keep each INSERT well under max_allowed_packet for the largest map the rules allow.
    for (let i = 0; i < rows.length; i += 500) await trx('content_map_placements').insert(rows.slice(i, i + 500));
  }

  /**
   * What the audit trail keeps of a map, as the transaction replacing it sees it: its settings and how
   * many placements it maps (a map can hold thousands; the trail names the change, not every value).
   */
  async snapshotForChange(trx: Knex.Transaction, key: ContentMapKey): Promise<Record<string, unknown> | undefined> {
    const [rows] = (await trx.raw(
      `SELECT m.content_type, m.data_service_id, m.lookup_column, (SELECT COUNT(*) FROM content_map_placements p WHERE p.content_map_id = m.content_map_id) AS placements
       FROM content_maps m WHERE m.account_id = ? AND m.retail_campaign_id = ? AND m.media_plan_id = ? FOR UPDATE`,
      keyParams(key),
    )) as [{ content_type: string; data_service_id: number | null; lookup_column: string | null; placements: number }[]];
    const row = rows[0];
    return (
      row && {
        ...key,
        contentType: row.content_type,
        dataServiceId: row.data_service_id === null ? null : Number(row.data_service_id),
        lookupColumn: row.lookup_column,
        placements: Number(row.placements),
      }
    );
  }

  async header(key: ContentMapKey): Promise<StoredContentMap | undefined> {
    const [row] = await this.db.execute<{ content_type: ContentType; data_service_id: number | null; lookup_column: string | null; num_of_cards: number }>(
      HEADER_SQL,
      keyParams(key),
    );
    return (
      row && {
        contentType: row.content_type,
        dataServiceId: row.data_service_id === null ? null : Number(row.data_service_id),
        lookupColumn: row.lookup_column,
        numOfCards: Number(row.num_of_cards),
      }
    );
  }

  /** Every map of a campaign (one per media plan) with all its placements in saved order: what an export renders. */
  /** Every campaign with at least one content map, of one account or of all: what serving compiles. */
  async campaignsWithMaps(accountId?: number): Promise<{ accountId: number; retailCampaignId: number }[]> {
    const query = this.db.knex('content_maps').distinct('account_id', 'retail_campaign_id').orderBy(['account_id', 'retail_campaign_id']);
    if (accountId !== undefined) query.where({ account_id: accountId });
    const rows: { account_id: number; retail_campaign_id: number }[] = await query;
    return rows.map((r) => ({ accountId: Number(r.account_id), retailCampaignId: Number(r.retail_campaign_id) }));
  }

  async ofCampaign(
    accountId: number,
    retailCampaignId: number,
  ): Promise<{ mediaPlanId: number; dataServiceId: number | null; lookupColumn: string | null; placements: StoredPlacement[] }[]> {
    const maps: { content_map_id: number; media_plan_id: number; data_service_id: number | null; lookup_column: string | null }[] = await this.db
      .knex('content_maps')
      .where({ account_id: accountId, retail_campaign_id: retailCampaignId })
      .orderBy('media_plan_id')
      .select('content_map_id', 'media_plan_id', 'data_service_id', 'lookup_column');
    if (maps.length === 0) return [];
    const rows: (PlacementRow & { content_map_id: number })[] = await this.db
      .knex('content_map_placements')
      .whereIn(
        'content_map_id',
        maps.map((m) => m.content_map_id),
      )
      .orderBy(['content_map_id', 'position']);
    return maps.map((m) => ({
      mediaPlanId: Number(m.media_plan_id),
      dataServiceId: m.data_service_id === null ? null : Number(m.data_service_id),
      lookupColumn: m.lookup_column,
      placements: rows.filter((r) => Number(r.content_map_id) === Number(m.content_map_id)).map(toPlacement),
    }));
  }

  /** A page of placements in saved order (campaigns without ad groups). */
  async placementsPage(key: ContentMapKey, window: PageWindow): Promise<Page<StoredPlacement>> {
    const rows = await this.db.execute<PlacementRow & { total_count: number }>(PLACEMENTS_PAGE_SQL, [...keyParams(key), window.limit, window.offset]);
    if (rows.length > 0 || window.offset === 0) return { items: rows.map(toPlacement), total: Number(rows[0]?.total_count ?? 0) };
    const [counted] = await this.db.execute<{ total: number }>(
      `SELECT COUNT(*) AS total FROM content_map_placements WHERE content_map_id = (${MAP_ID})`,
      keyParams(key),
    );
    return { items: [], total: Number(counted?.total ?? 0) };
  }

  /** A page of ad groups in saved order, each with all its placements; total counts ad groups. */
  async adGroupsPage(key: ContentMapKey, window: PageWindow): Promise<Page<{ adGroupId: number; placements: StoredPlacement[] }>> {
    const groups = await this.db.execute<{ ad_group_id: number; total_count: number }>(AD_GROUPS_PAGE_SQL, [...keyParams(key), window.limit, window.offset]);
    if (groups.length === 0) {
      if (window.offset === 0) return { items: [], total: 0 };
      const [counted] = await this.db.execute<{ total: number }>(
        `SELECT COUNT(DISTINCT ad_group_id) AS total FROM content_map_placements WHERE content_map_id = (${MAP_ID})`,
        keyParams(key),
      );
      return { items: [], total: Number(counted?.total ?? 0) };
    }
    const ids = groups.map((g) => Number(g.ad_group_id));
    const rows: PlacementRow[] = await this.db
      .knex('content_map_placements')
      .whereRaw(`content_map_id = (${MAP_ID})`, keyParams(key))
      .whereIn('ad_group_id', ids)
      .orderBy('position');
    const placements = rows.map(toPlacement);
    return {
      items: ids.map((adGroupId) => ({ adGroupId, placements: placements.filter((p) => p.adGroupId === adGroupId) })),
      total: Number(groups[0].total_count),
    };
  }
}
