import { effectivePage } from '@contracts/domain';
import { problem, validationFailed } from '@platform/errors';
import { withTransaction, type Page } from '@platform/mysql';
import { recordChange, type EventOutbox } from '@platform/service';
import type { Knex } from 'knex';
import type { DataSignalService } from '../data-signals/data-signal.service';
import type { AssetSourcesPeer } from '../peers/asset-sources.peer';
import type { CampaignInput, CampaignRecord, CampaignSummary, DecisionGraph } from './campaign.model';
import type { CampaignRepository } from './campaign.repository';
import { assetReferenceErrors, campaignErrors, namedAssetSources } from './campaign.rules';

export const campaignNotFound = (campaignId: number) => problem('DYNAMIC_CAMPAIGN_NOT_FOUND', `Campaign ${campaignId} was not found.`);

/** Names trimmed as stored, so what a read shows is what the rules judged. */
function normalizedGraph(graph: DecisionGraph): DecisionGraph {
  return {
    defaultCreativeMaster: graph.defaultCreativeMaster?.trim() ?? null,
    rulePriority: graph.rulePriority,
    segments: graph.segments.map((segment) => ({
      name: segment.name.trim(),
      creativeMasters: segment.creativeMasters.map((m) => m.trim()),
      condition: {
        operator: segment.condition.operator,
        expressions: segment.condition.expressions.map((e) => ({ ...e, operator: e.operator.trim() })),
      },
    })),
  };
}

export class CampaignService {
  constructor(
    private readonly knex: Knex,
    private readonly events: EventOutbox,
    private readonly campaigns: CampaignRepository,
    private readonly dataSignals: DataSignalService,
  ) {}

  /**
   * Checks every rule, then every reference: data signals against the catalog here, asset sources
   * and their columns against asset-sources (through `assetSources`, on behalf of the caller).
   * Nothing is stored unless all hold.
   */
  async create(accountId: number, input: CampaignInput, assetSources: AssetSourcesPeer): Promise<number> {
    const errors = campaignErrors(input, await this.dataSignals.index());
    if (errors.length > 0) throw validationFailed(errors);
    // Asked only once the request itself is sound: a malformed one costs no call to asset-sources.
    const named = namedAssetSources(input);
    const references = named.length > 0 ? assetReferenceErrors(input, await assetSources.describe(accountId, named)) : [];
    if (references.length > 0) throw validationFailed(references);
    const campaign = {
      campaignName: input.campaignName.trim(),
      defaultURL: input.defaultURL,
      assetMap: input.assetMap,
      decisionMap: input.decisionMap,
      decisionGraph: normalizedGraph(input.decisionGraph),
      ad: { adId: input.ad.adId.trim(), title: (input.ad.title ?? input.campaignName).trim() },
    };
    return withTransaction(this.knex, async (trx) => {
      const campaignId = await this.campaigns.insert(trx, accountId, campaign);
      const after = await this.campaigns.findForChange(trx, accountId, campaignId);
      await recordChange(trx, this.events, { resourceType: 'dynamic-campaign', resourceId: campaignId, action: 'create', accountId, after });
      return campaignId;
    });
  }

  list(accountId: number, page: { offset?: number; limit?: number } | undefined): Promise<Page<CampaignSummary>> {
    return this.campaigns.list(accountId, effectivePage(page));
  }

  async get(accountId: number, campaignId: number): Promise<CampaignRecord> {
    const campaign = await this.campaigns.get(accountId, campaignId);
    if (!campaign) throw campaignNotFound(campaignId);
    return campaign;
  }

  async delete(accountId: number, campaignId: number): Promise<void> {
    await withTransaction(this.knex, async (trx) => {
      const before = await this.campaigns.findForChange(trx, accountId, campaignId);
      if (!before || !(await this.campaigns.delete(trx, accountId, campaignId))) throw campaignNotFound(campaignId);
      await recordChange(trx, this.events, { resourceType: 'dynamic-campaign', resourceId: campaignId, action: 'delete', accountId, before });
    });
  }
}
