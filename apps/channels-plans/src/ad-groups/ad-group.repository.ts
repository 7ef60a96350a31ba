import type { Knex } from 'knex';
import type { ServiceDatabase } from '@platform/mysql';
import type { AdGroupRecord, NewAdGroup } from './ad-group.model';

interface AdGroupRow {
  ad_group_id: number;
  ad_group_name: string;
}

/** The unique index that makes a name taken within a campaign. */
export const UNIQUE_AD_GROUP_NAME = 'uq_ad_groups_campaign_name';

const LIST_SQL = 'SELECT ad_group_id, ad_group_name FROM ad_groups WHERE account_id = ? AND retail_campaign_id = ? ORDER BY ad_group_id';

const toRecord = (row: AdGroupRow): AdGroupRecord => ({ adGroupId: Number(row.ad_group_id), adGroupName: row.ad_group_name });

export class AdGroupRepository {
  constructor(private readonly db: ServiceDatabase) {}

  async insert(trx: Knex.Transaction, adGroup: NewAdGroup): Promise<number> {
    const [id] = await trx('ad_groups').insert({
      account_id: adGroup.accountId,
      retail_campaign_id: adGroup.retailCampaignId,
      ad_group_name: adGroup.adGroupName,
    });
    return Number(id);
  }

  async list(accountId: number, retailCampaignId: number): Promise<AdGroupRecord[]> {
    const rows = await this.db.execute<AdGroupRow>(LIST_SQL, [accountId, retailCampaignId]);
    return rows.map(toRecord);
  }
}
