import type { Knex } from 'knex';
import { RETAIL_CAMPAIGN_FIELDS, type RetailCampaignStatus } from '@contracts/domain';
import { fieldColumns, listWithTotalQuery, type Page, type PageWindow, type ServiceDatabase } from '@platform/mysql';
import type { NewRetailCampaign, RetailCampaignChanges, RetailCampaignRecord } from './retail-campaign.model';

/** Columns and row mapping, from the campaign's field table. */
const CAMPAIGN = fieldColumns(RETAIL_CAMPAIGN_FIELDS);

/** Read on every campaign page and by the template-campaign list: a prepared statement, not built per call. */
const FIND_SQL = `SELECT ${CAMPAIGN.selectList} FROM retail_campaigns WHERE account_id = ? AND retail_campaign_id = ?`;

export class RetailCampaignRepository {
  constructor(private readonly db: ServiceDatabase) {}

  async insert(trx: Knex.Transaction, campaign: NewRetailCampaign): Promise<number> {
    const [id] = await trx('retail_campaigns').insert(CAMPAIGN.toColumns(campaign));
    return Number(id);
  }

  /** The campaign as the transaction changing it sees it: the audit trail's before and after. */
  async findForChange(trx: Knex.Transaction, accountId: number, retailCampaignId: number): Promise<RetailCampaignRecord | undefined> {
    const [rows] = (await trx.raw(FIND_SQL, [accountId, retailCampaignId])) as [Record<string, unknown>[]];
    return rows[0] && CAMPAIGN.toRecord(rows[0]);
  }

  async find(accountId: number, retailCampaignId: number): Promise<RetailCampaignRecord | undefined> {
    const [row] = await this.db.execute<Record<string, unknown>>(FIND_SQL, [accountId, retailCampaignId]);
    return row && CAMPAIGN.toRecord(row);
  }

  list(accountId: number, window: PageWindow): Promise<Page<RetailCampaignRecord>> {
    const query = this.db.knex('retail_campaigns').select(this.db.knex.raw(CAMPAIGN.selectList)).where({ account_id: accountId }).orderBy('retail_campaign_id');
    return listWithTotalQuery(query, window, CAMPAIGN.toRecord);
  }

  /**
   * The current status, with the row locked until `trx` ends: a concurrent move waits here and
   * then reads the status this one left, instead of deciding on a status that is about to change.
   */
  async lockStatus(trx: Knex.Transaction, accountId: number, retailCampaignId: number): Promise<RetailCampaignStatus | undefined> {
    const row: { status: RetailCampaignStatus } | undefined = await trx('retail_campaigns')
      .select('status')
      .where({ account_id: accountId, retail_campaign_id: retailCampaignId })
      .forUpdate()
      .first();
    return row?.status;
  }

  async update(trx: Knex.Transaction, accountId: number, retailCampaignId: number, changes: RetailCampaignChanges): Promise<void> {
    const columns = { ...CAMPAIGN.toColumns(changes), updated_at: trx.raw('CURRENT_TIMESTAMP(3)') };
    await trx('retail_campaigns').where({ account_id: accountId, retail_campaign_id: retailCampaignId }).update(columns);
  }
}
