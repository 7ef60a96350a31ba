import { CHANNELS_PLANS_ACCESS, pickFieldInput, RETAIL_CAMPAIGN_FIELDS, toFieldMessage } from '@contracts/domain';
import { channelsPlansV1 as v1 } from '@contracts/proto';
import type { PeerOf } from '@platform/grpc';
import type { Logger } from '@platform/logging';
import { unaryHandlers, type CallGuard } from '@platform/service';
import type { RetailCampaignRecord } from './retail-campaign.model';
import type { TemplatesPeer } from '../peers/templates.peer';
import type { RetailCampaignService } from './retail-campaign.service';

/** The record as its message: field names and kinds come from RETAIL_CAMPAIGN_FIELDS. */
export const toRetailCampaign = (record: RetailCampaignRecord): v1.RetailCampaign => toFieldMessage(RETAIL_CAMPAIGN_FIELDS, record);

type RetailCampaignHandlers = Pick<
  v1.ChannelsPlansServiceServer,
  'createRetailCampaign' | 'listRetailCampaigns' | 'getRetailCampaign' | 'updateRetailCampaign' | 'getCampaignFacts'
>;

export function retailCampaignGrpc({
  logger,
  guard,
  retailCampaigns,
  templates,
}: {
  logger: Logger;
  guard: CallGuard;
  retailCampaigns: RetailCampaignService;
  templates: PeerOf<TemplatesPeer>;
}): RetailCampaignHandlers {
  return unaryHandlers(v1.ChannelsPlansServiceService, CHANNELS_PLANS_ACCESS, logger, {
    createRetailCampaign: async (request, call) => {
      guard.account(call, request.accountId);
      const input = pickFieldInput(RETAIL_CAMPAIGN_FIELDS, 'create', request);
      const retailCampaignId = await retailCampaigns.create(request.accountId, input, templates(call));
      return { retailCampaignId };
    },

    listRetailCampaigns: async (request, call) => {
      guard.account(call, request.accountId);
      const page = await retailCampaigns.list(request.accountId, request.page);
      return { retailCampaigns: page.items.map(toRetailCampaign), total: page.total };
    },

    getRetailCampaign: async (request, call) => {
      guard.account(call, request.accountId);
      const campaign = await retailCampaigns.get(request.accountId, request.retailCampaignId);
      return { retailCampaign: toRetailCampaign(campaign) };
    },

    updateRetailCampaign: async (request, call) => {
      guard.account(call, request.accountId);
      await retailCampaigns.update(request.accountId, request.retailCampaignId, pickFieldInput(RETAIL_CAMPAIGN_FIELDS, 'update', request));
      return {};
    },

    // Peer method: the calling service checked its operation's permission; the scope is checked here.
    getCampaignFacts: async (request, call) => {
      guard.peer(call, request.accountId);
      const facts = await retailCampaigns.facts(request.accountId, request.retailCampaignId);
      return {
        retailCampaignId: facts.retailCampaignId,
        campaignName: facts.campaignName,
        status: facts.status,
        isAdGroupCampaign: facts.isAdGroupCampaign,
        isSbt: facts.isSbt,
        templateIdx: facts.templateIdx ?? undefined,
        adGroups: facts.adGroups.map((g) => ({ adGroupId: g.adGroupId, adGroupName: g.adGroupName })),
      };
    },
  });
}
