import { AD_GROUP_NAME_MAX } from '@contracts/domain';
import { blankOrTooLong, problem, validationFailed } from '@platform/errors';
import { rethrowDuplicateKey, withTransaction } from '@platform/mysql';
import { recordChange, type EventOutbox } from '@platform/service';
import type { Knex } from 'knex';
import type { RetailCampaignService } from '../retail-campaigns/retail-campaign.service';
import type { AdGroupRecord } from './ad-group.model';
import { UNIQUE_AD_GROUP_NAME, type AdGroupRepository } from './ad-group.repository';

/**
 * Ad groups of a retail campaign. Only a campaign created with isAdGroupCampaign holds them; the
 * campaign must be one of the account's (another account's reads as missing).
 */
export class AdGroupService {
  constructor(private readonly deps: { knex: Knex; events: EventOutbox; adGroups: AdGroupRepository; campaigns: RetailCampaignService }) {}

  async create(accountId: number, retailCampaignId: number, adGroupName: string): Promise<number> {
    const errors = blankOrTooLong('/adGroupName', adGroupName, AD_GROUP_NAME_MAX);
    if (errors.length > 0) throw validationFailed(errors);
    const campaign = await this.deps.campaigns.get(accountId, retailCampaignId);
    // 409: the request is well formed, but the campaign was not set up to hold ad groups.
    if (!campaign.isAdGroupCampaign) {
      throw problem(
        'RETAIL_CAMPAIGN_NOT_AD_GROUP_CAMPAIGN',
        `Retail campaign ${retailCampaignId} is not an ad-group campaign (isAdGroupCampaign is false); it has no ad groups.`,
      );
    }
    const name = adGroupName.trim();
    // No look-up first: two concurrent creates would both pass it. The unique index decides.
    const record = { accountId, retailCampaignId, adGroupName: name };
    return withTransaction(this.deps.knex, async (trx) => {
      const adGroupId = await this.deps.adGroups.insert(trx, record);
      await recordChange(trx, this.deps.events, {
        resourceType: 'ad-group',
        resourceId: adGroupId,
        action: 'create',
        accountId,
        after: { adGroupId, ...record },
      });
      return adGroupId;
    }).catch((error: unknown) =>
      rethrowDuplicateKey(
        error,
        () => problem('AD_GROUP_NAME_TAKEN', `Retail campaign ${retailCampaignId} already has an ad group named ${JSON.stringify(name)}.`),
        {
          key: UNIQUE_AD_GROUP_NAME,
        },
      ),
    );
  }

  /** In creation order; a campaign that is not an ad-group campaign simply has none. */
  async list(accountId: number, retailCampaignId: number): Promise<AdGroupRecord[]> {
    await this.deps.campaigns.get(accountId, retailCampaignId);
    return this.deps.adGroups.list(accountId, retailCampaignId);
  }
}
