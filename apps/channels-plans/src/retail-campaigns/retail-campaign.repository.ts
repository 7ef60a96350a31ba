import type { Knex } from 'knex';
import type { RetailCampaignStatus } from '@contracts/domain';
import { listWithTotalQuery, type Page, type PageWindow, type ServiceDatabase } from '@platform/mysql';
import type { NewRetailCampaign, RetailCampaignChanges, RetailCampaignRecord } from './retail-campaign.model';

interface RetailCampaignRow {
  retail_campaign_id: number;
  account_id: number;
  campaign_name: string;
  template_idx: number | null;
  is_ad_group_campaign: boolean;
  is_sbt: boolean;
  status: RetailCampaignStatus;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'retail_campaign_id, account_id, campaign_name, template_idx, is_ad_group_campaign, is_sbt, status, created_at, updated_at';

/** Read on every campaign page and by the template-campaign list: a prepared statement, not built per call. */
const FIND_SQL = `SELECT ${COLUMNS} FROM retail_campaigns WHERE account_id = ? AND retail_campaign_id = ?`;

const toRecord = (row: RetailCampaignRow): RetailCampaignRecord => ({
  retailCampaignId: Number(row.retail_campaign_id),
  accountId: Number(row.account_id),
  campaignName: row.campaign_name,
  templateIdx: row.template_idx === null ? null : Number(row.template_idx),
  isAdGroupCampaign: row.is_ad_group_campaign,
  isSbt: row.is_sbt,
  status: row.status,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export class RetailCampaignRepository {
  constructor(private readonly db: ServiceDatabase) {}

  async insert(campaign: NewRetailCampaign): Promise<number> {
    const [id] = await this.db.knex('retail_campaigns').insert({
      account_id: campaign.accountId,
      campaign_name: campaign.campaignName,
      template_idx: campaign.templateIdx,
      is_ad_group_campaign: campaign.isAdGroupCampaign,
      is_sbt: campaign.isSbt,
    });
    return Number(id);
  }

  async find(accountId: number, retailCampaignId: number): Promise<RetailCampaignRecord | undefined> {
    const [row] = await this.db.execute<RetailCampaignRow>(FIND_SQL, [accountId, retailCampaignId]);
    return row && toRecord(row);
  }

  list(accountId: number, window: PageWindow): Promise<Page<RetailCampaignRecord>> {
    const query = this.db.knex('retail_campaigns').select(this.db.knex.raw(COLUMNS)).where({ account_id: accountId }).orderBy('retail_campaign_id');
    return listWithTotalQuery(query, window, toRecord);
  }

  /**
   * The current status, with the row locked until `trx` ends: a concurrent move waits here and
   * then reads the status this one left, instead of deciding on a status that is about to change.
   */
  async lockStatus(trx: Knex.Transaction, accountId: number, retailCampaignId: number): Promise<RetailCampaignStatus | undefined> {
    const row: Pick<RetailCampaignRow, 'status'> | undefined = await trx('retail_campaigns')
      .select('status')
      .where({ account_id: accountId, retail_campaign_id: retailCampaignId })
      .forUpdate()
      .first();
    return row?.status;
  }

  async update(trx: Knex.Transaction, accountId: number, retailCampaignId: number, changes: RetailCampaignChanges): Promise<void> {
    const columns: Record<string, unknown> = { updated_at: trx.raw('CURRENT_TIMESTAMP(3)') };
    if (changes.campaignName !== undefined) columns.campaign_name = changes.campaignName;
    if (changes.status !== undefined) columns.status = changes.status;
    await trx('retail_campaigns').where({ account_id: accountId, retail_campaign_id: retailCampaignId }).update(columns);
  }
}
