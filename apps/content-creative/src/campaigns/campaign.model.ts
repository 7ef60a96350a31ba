import type { DecisionGraph } from '@domain/decisioning';
export interface AssetMapEntry {
  assetId: string;
  assetSourceId: number;
  assetSourceColumn: string;
}

export interface DecisionMapEntry {
  assetSourceId: number;
  /** A data signal id of the catalog. */
  dataSignalService: number;
  /** A property id of that signal. */
  dataSignalProperty: string;
}

// The decision graph is the decisioning library's: ad serving evaluates the same shape.
export type { DecisionGraph, Expression, Segment } from '@domain/decisioning';

/** A campaign as a caller describes it. */
export interface CampaignInput {
  campaignName: string;
  defaultURL: string;
  assetMap: AssetMapEntry[];
  decisionMap: DecisionMapEntry[];
  decisionGraph: DecisionGraph;
  ad: { adId: string; title?: string };
}

export interface CampaignSummary {
  campaignId: number;
  campaignName: string;
  defaultURL: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface CampaignRecord extends CampaignSummary {
  accountId: number;
  assetMap: AssetMapEntry[];
  decisionMap: DecisionMapEntry[];
  decisionGraph: DecisionGraph;
  ad: { adId: string; title: string };
}

/** An asset source of the account as asset-sources describes it. */
export interface DescribedAssetSource {
  assetSourceId: number;
  columnNames: string[];
  assetKeyColumn?: string;
}
