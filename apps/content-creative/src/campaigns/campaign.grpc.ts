import { CONTENT_CREATIVE_ACCESS, type ExpressionValue } from '@contracts/domain';
import { contentCreativeV1 as v1 } from '@contracts/proto';
import type { PeerOf } from '@platform/grpc';
import type { Logger } from '@platform/logging';
import { unaryHandlers, type CallGuard } from '@platform/service';
import type { AssetSourcesPeer } from '../peers/asset-sources.peer';
import type { CampaignInput, CampaignSummary, DecisionGraph } from './campaign.model';
import type { CampaignService } from './campaign.service';

/** `yyyy-mm-dd hh:mm:ss.s` in UTC, the campaign date format. */
export const campaignDate = (date: Date) => date.toISOString().slice(0, 21).replace('T', ' ');

/** An operand that is not JSON stays undefined, which the rules refuse as INVALID_VALUE. */
function parseOperand(json: string): ExpressionValue {
  try {
    return JSON.parse(json) as ExpressionValue;
  } catch {
    return undefined as unknown as ExpressionValue;
  }
}

const toSummary = (c: CampaignSummary): v1.DynamicCampaignSummary => ({
  campaignId: c.campaignId,
  campaignName: c.campaignName,
  defaultUrl: c.defaultURL,
  creationDate: campaignDate(c.createdAt),
  lastUpdate: campaignDate(c.updatedAt),
});

const toGraph = (graph: DecisionGraph): v1.DecisionGraph => ({
  defaultCreativeMaster: graph.defaultCreativeMaster ?? undefined,
  rulePriority: graph.rulePriority ?? undefined,
  segments: graph.segments.map((s) => ({
    name: s.name,
    creativeMasters: s.creativeMasters,
    condition: {
      operator: s.condition.operator,
      expressions: s.condition.expressions.map((e) => ({
        dataSignalServiceId: e.dataSignalServiceId,
        dataSignalPropertyId: e.dataSignalPropertyId,
        operator: e.operator,
        valueJson: JSON.stringify(e.value),
      })),
    },
  })),
});

const toInput = (r: v1.CreateDynamicCampaignRequest): CampaignInput => ({
  campaignName: r.campaignName,
  defaultURL: r.defaultUrl,
  assetMap: r.assetMap.map((a) => ({ assetId: a.assetId, assetSourceId: a.assetSourceId, assetSourceColumn: a.assetSourceColumn })),
  decisionMap: r.decisionMap.map((d) => ({ assetSourceId: d.assetSourceId, dataSignalService: d.dataSignalService, dataSignalProperty: d.dataSignalProperty })),
  decisionGraph: {
    defaultCreativeMaster: r.decisionGraph?.defaultCreativeMaster ?? null,
    rulePriority: r.decisionGraph?.rulePriority ?? null,
    segments: (r.decisionGraph?.segments ?? []).map((s) => ({
      name: s.name,
      creativeMasters: s.creativeMasters,
      condition: {
        operator: s.condition?.operator ?? '',
        expressions: (s.condition?.expressions ?? []).map((e) => ({
          dataSignalServiceId: e.dataSignalServiceId,
          dataSignalPropertyId: e.dataSignalPropertyId,
          operator: e.operator,
          value: parseOperand(e.valueJson),
        })),
      },
    })),
  },
  ad: { adId: r.adId, title: r.adTitle },
});

type CampaignMethods = 'createDynamicCampaign' | 'listDynamicCampaigns' | 'getDynamicCampaign' | 'deleteDynamicCampaign';

export function campaignGrpc({
  logger,
  guard,
  campaigns,
  assetSources,
}: {
  logger: Logger;
  guard: CallGuard;
  campaigns: CampaignService;
  assetSources: PeerOf<AssetSourcesPeer>;
}): Pick<v1.ContentCreativeServiceServer, CampaignMethods> {
  return unaryHandlers(v1.ContentCreativeServiceService, CONTENT_CREATIVE_ACCESS, logger, {
    createDynamicCampaign: async (request, call) => {
      guard.account(call, request.accountId);
      const campaignId = await campaigns.create(request.accountId, toInput(request), assetSources(call));
      return { campaignId };
    },

    listDynamicCampaigns: async (request, call) => {
      guard.account(call, request.accountId);
      const page = await campaigns.list(request.accountId, request.page);
      return { campaigns: page.items.map(toSummary), total: page.total };
    },

    getDynamicCampaign: async (request, call) => {
      guard.account(call, request.accountId);
      const c = await campaigns.get(request.accountId, request.campaignId);
      return {
        summary: toSummary(c),
        assetMap: c.assetMap,
        decisionMap: c.decisionMap,
        decisionGraph: toGraph(c.decisionGraph),
        // A campaign with segments varies its creative by signal; without, it always serves the default.
        ad: { adId: c.ad.adId, title: c.ad.title, dynamic: c.decisionGraph.segments.length > 0 },
      };
    },

    deleteDynamicCampaign: async (request, call) => {
      guard.account(call, request.accountId);
      await campaigns.delete(request.accountId, request.campaignId);
      return {};
    },
  });
}
