import { compileGraph, signalKey, type CompiledGraph } from '@domain/decisioning';
import type { ServingCampaign, ServingItem, ServingPlacement, ServingSignal } from '@contracts/domain';

/** A dynamic campaign's graph, compiled once when its snapshot arrives. */
export interface CompiledDynamicCampaign {
  campaignId: number;
  defaultUrl: string;
  graph: CompiledGraph;
  segmentNames: string[];
}

export interface CompiledPlacement extends ServingPlacement {
  /** Items by content value, for the decided creative master. */
  byContentValue: Map<string, ServingItem>;
}

/** A campaign as serving reads it: maps instead of records, graphs compiled. */
export interface CompiledCampaign {
  source: ServingCampaign;
  accountId: number;
  retailCampaignId: number;
  serves: boolean;
  placements: Map<number, CompiledPlacement>;
  dynamicCampaigns: Map<number, CompiledDynamicCampaign>;
  signals: Map<string, ServingSignal & { key: string }>;
}

export function compileCampaign(campaign: ServingCampaign): CompiledCampaign {
  return {
    source: campaign,
    accountId: campaign.accountId,
    retailCampaignId: campaign.retailCampaignId,
    serves: campaign.status === 'ACTIVE',
    placements: new Map(
      Object.values(campaign.placements).map((p) => [p.placementId, { ...p, byContentValue: new Map(p.items.map((i) => [i.contentValue, i])) }]),
    ),
    dynamicCampaigns: new Map(
      Object.values(campaign.dynamicCampaigns).map((d) => [
        d.campaignId,
        { campaignId: d.campaignId, defaultUrl: d.defaultUrl, graph: compileGraph(d.graph), segmentNames: d.graph.segments.map((s) => s.name) },
      ]),
    ),
    signals: new Map(Object.entries(campaign.signals).map(([name, s]) => [name, { ...s, key: signalKey(s.dataSignalId, s.propertyId) }])),
  };
}
