import type { AssetSourceContentType, AssetSourceType, RecommendationDataType, RecommendationType, RemoteHttpMethod } from '@contracts/domain';

/** One data row of a source: column name to value. */
export type SourceRow = Record<string, unknown>;

/** The MariaDB JSON path of a column in a stored row (`asset_source_rows.row_json`): its name quoted, whatever characters it has. */
export const rowJsonPath = (column: string): string => `$.${JSON.stringify(column)}`;

/** Characters of the asset key column's value kept as a row's key (`asset_source_rows.key_value`, VARCHAR(255)). */
export const KEY_VALUE_MAX = 255;

/** The special columns of a source; null when unset. */
export interface SpecialColumns {
  assetKeyColumn: string | null;
  assetVariantColumn: string | null;
  assetGroupColumn: string | null;
  reportingColumn: string | null;
  rotationWeightColumn: string | null;
}

export const NO_SPECIAL_COLUMNS: SpecialColumns = {
  assetKeyColumn: null,
  assetVariantColumn: null,
  assetGroupColumn: null,
  reportingColumn: null,
  rotationWeightColumn: null,
};

/** What every kind of source is described by. */
export interface SourceDefinition {
  assetSourceName: string;
  columnNames: string[];
  columns: SpecialColumns;
  contentType: AssetSourceContentType | null;
}

export interface RemoteSettings {
  url: string;
  httpMethod: RemoteHttpMethod;
  additionalParams: string;
  cacheTime: number;
}

export interface RecommendationMapEntry {
  assetSourceColumn: string;
  dataType: RecommendationDataType;
  priority?: number;
  acceptedRange?: number;
}

export interface RecommendationConfig {
  type: RecommendationType;
  maxRecommendations: number;
  cookieGroup?: string;
  recommendationMap?: RecommendationMapEntry[];
}

export interface RecommendationSettings {
  sourceAssetSourceId: number;
  updateFrequency: number;
  config: RecommendationConfig;
  computedAt: Date | null;
}

export interface AssetSourceRecord extends SourceDefinition {
  assetSourceId: number;
  accountId: number;
  assetSourceType: AssetSourceType;
  rowCount: number;
  remote: RemoteSettings | null;
  /** Remote sources: when the stored rows were fetched; null before the first fetch. */
  rowsFetchedAt: Date | null;
  recommendation: RecommendationSettings | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface AssetSourceSummary {
  assetSourceId: number;
  assetSourceName: string;
  assetSourceType: AssetSourceType;
}

/** A new or replaced source as the repository stores it. */
export interface StoredSource extends SourceDefinition {
  assetSourceType: AssetSourceType;
  remote?: RemoteSettings | null;
  recommendation?: Omit<RecommendationSettings, 'computedAt'> | null;
}
