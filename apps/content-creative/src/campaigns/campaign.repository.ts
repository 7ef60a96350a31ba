import type { Knex } from 'knex';
import { readJsonColumn, writeJsonColumn, type Page, type PageWindow, type ServiceDatabase } from '@platform/mysql';
import type { AssetMapEntry, CampaignRecord, CampaignSummary, DecisionGraph, DecisionMapEntry } from './campaign.model';

interface SummaryRow {
  campaign_id: number;
  campaign_name: string;
  default_url: string;
  created_at: Date;
  updated_at: Date;
}

interface CampaignRow extends SummaryRow {
  account_id: number;
  asset_map: string;
  decision_map: string;
  decision_graph: string;
  ad_id: string;
  ad_title: string;
}

const toSummary = (row: SummaryRow): CampaignSummary => ({
  campaignId: Number(row.campaign_id),
  campaignName: row.campaign_name,
  defaultURL: row.default_url,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toRecord = (row: CampaignRow): CampaignRecord => ({
  ...toSummary(row),
  accountId: Number(row.account_id),
  assetMap: readJsonColumn<AssetMapEntry[]>(row.asset_map) ?? [],
  decisionMap: readJsonColumn<DecisionMapEntry[]>(row.decision_map) ?? [],
  decisionGraph: readJsonColumn<DecisionGraph>(row.decision_graph) ?? { defaultCreativeMaster: null, rulePriority: null, segments: [] },
  ad: { adId: row.ad_id, title: row.ad_title },
});

const SUMMARY = 'campaign_id, campaign_name, default_url, created_at, updated_at';
const PAGE_SQL = `SELECT ${SUMMARY}, (SELECT COUNT(*) FROM dynamic_campaigns WHERE account_id = ?) AS total_count
  FROM dynamic_campaigns WHERE account_id = ? ORDER BY campaign_id LIMIT ? OFFSET ?`;
const GET_SQL = 'SELECT * FROM dynamic_campaigns WHERE account_id = ? AND campaign_id = ?';

export class CampaignRepository {
  constructor(private readonly db: ServiceDatabase) {}

  async insert(
    trx: Knex.Transaction,
    accountId: number,
    campaign: Omit<CampaignRecord, 'campaignId' | 'accountId' | 'createdAt' | 'updatedAt'>,
  ): Promise<number> {
    const [id] = await trx('dynamic_campaigns').insert({
      account_id: accountId,
      campaign_name: campaign.campaignName,
      default_url: campaign.defaultURL,
      asset_map: writeJsonColumn(campaign.assetMap),
      decision_map: writeJsonColumn(campaign.decisionMap),
      decision_graph: writeJsonColumn(campaign.decisionGraph),
      ad_id: campaign.ad.adId,
      ad_title: campaign.ad.title,
    });
    return Number(id);
  }

  async list(accountId: number, window: PageWindow): Promise<Page<CampaignSummary>> {
    const rows = await this.db.execute<SummaryRow & { total_count: number }>(PAGE_SQL, [accountId, accountId, window.limit, window.offset]);
    if (rows.length > 0 || window.offset === 0) return { items: rows.map(toSummary), total: Number(rows[0]?.total_count ?? 0) };
    const [counted] = await this.db.execute<{ total: number }>('SELECT COUNT(*) AS total FROM dynamic_campaigns WHERE account_id = ?', [accountId]);
    return { items: [], total: Number(counted?.total ?? 0) };
  }

  /** The account's first `limit` campaigns, whole: the graphs serving may decide by. */
  async allOfAccount(accountId: number, limit: number): Promise<CampaignRecord[]> {
    const rows = await this.db.execute<CampaignRow>('SELECT * FROM dynamic_campaigns WHERE account_id = ? ORDER BY campaign_id LIMIT ?', [accountId, limit]);
    return rows.map(toRecord);
  }

  async get(accountId: number, campaignId: number): Promise<CampaignRecord | undefined> {
    const [row] = await this.db.execute<CampaignRow>(GET_SQL, [accountId, campaignId]);
    return row && toRecord(row);
  }

  /** The campaign as the transaction changing it sees it (row locked): the audit trail's before and after. */
  async findForChange(trx: Knex.Transaction, accountId: number, campaignId: number): Promise<CampaignRecord | undefined> {
    const [rows] = (await trx.raw(`${GET_SQL} FOR UPDATE`, [accountId, campaignId])) as [CampaignRow[]];
    return rows[0] && toRecord(rows[0]);
  }

  /** False when the account has no such campaign. */
  async delete(trx: Knex.Transaction, accountId: number, campaignId: number): Promise<boolean> {
    const deleted = await trx('dynamic_campaigns').where({ account_id: accountId, campaign_id: campaignId }).delete();
    return deleted > 0;
  }
}
