/**
 * Values of the asset-sources domain that the gateway and the service both need: the kinds, the
 * enumerations of the inline, remote and recommendation bodies, and the field bounds. Declared
 * here once so the edge schema and the service's own re-check cannot disagree.
 */

export const ASSET_SOURCE_TYPES = ['inline', 'remote', 'recommendation', 'motion-design', 'feed'] as const;
export type AssetSourceType = (typeof ASSET_SOURCE_TYPES)[number];

/** How a source's data is written (inline) or how a fetched body is parsed (remote). */
export const ASSET_SOURCE_CONTENT_TYPES = ['csv', 'json', 'xml'] as const;
export type AssetSourceContentType = (typeof ASSET_SOURCE_CONTENT_TYPES)[number];

export const REMOTE_HTTP_METHODS = ['GET', 'POST'] as const;
export type RemoteHttpMethod = (typeof REMOTE_HTTP_METHODS)[number];

export const RECOMMENDATION_TYPES = ['content', 'collaborative', 'hybrid'] as const;
export type RecommendationType = (typeof RECOMMENDATION_TYPES)[number];

export const RECOMMENDATION_DATA_TYPES = ['string', 'numeric'] as const;
export type RecommendationDataType = (typeof RECOMMENDATION_DATA_TYPES)[number];

/** The special columns of a source, by their body member names; each, when set, must be a column. */
export const ASSET_SOURCE_SPECIAL_COLUMNS = ['assetKeyColumn', 'assetVariantColumn', 'assetGroupColumn', 'reportingColumn', 'rotationWeightColumn'] as const;
export type AssetSourceSpecialColumn = (typeof ASSET_SOURCE_SPECIAL_COLUMNS)[number];

export const ASSET_SOURCE_NAME_MAX = 200;
export const ASSET_SOURCE_COLUMN_NAME_MAX = 128;
export const ASSET_SOURCE_COLUMNS_MAX = 100;
/** Rows one inline create or update may carry (the request body limit usually binds first). */
export const ASSET_SOURCE_ROWS_MAX = 100_000;
/** Serialized size of one row. */
export const ASSET_SOURCE_ROW_MAX_BYTES = 16_384;
export const ASSET_SOURCE_URL_MAX = 2048;
export const ASSET_SOURCE_PARAMS_MAX = 4096;
/** Seconds a remote source's fetched copy may be served: at most a week. */
export const REMOTE_CACHE_TIME_MAX = 604_800;
export const ASSET_SOURCE_LABEL_MAX = 128;

export const RECOMMENDATION_PRIORITY_MIN = 1;
export const RECOMMENDATION_PRIORITY_MAX = 10;
export const RECOMMENDATIONS_MAX = 100;
export const RECOMMENDATION_MAP_MAX = 20;
export const RECOMMENDATION_ACCEPTED_RANGE_MAX = 1_000_000_000;
/** Hours between scheduled recomputations: at most 30 days. */
export const RECOMMENDATION_UPDATE_FREQUENCY_MAX = 720;
export const RECOMMENDATION_COOKIE_GROUP_MAX = 128;
export const RECOMMENDATION_COOKIE_ID_MAX = 256;
export const RECOMMENDATION_ITEM_KEY_MAX = 512;
export const RECOMMENDATION_EVENT_TYPE_MAX = 64;
/** Items of a source a recommendation source ranks; larger catalogues are refused rather than ranked for minutes. */
export const RECOMMENDATION_SOURCE_ITEMS_MAX = 10_000;

/** The columns of every recommendation source's rows: one row per (item, recommended item). */
export const RECOMMENDATION_COLUMNS = ['itemKey', 'recommendedItemKey', 'rank', 'score'] as const;

/** Asset-to-column entries of one motion-design fill. */
export const MOTION_DESIGN_MAP_MAX = 100;
export const MOTION_DESIGN_CAMPAIGN_ID_MAX = 20;

/**
 * What the retail feed list (GET /v2/accounts/:accountId/retail-feed-settings/list) selects with `fields`,
 * and the column each reads: product the source's asset key column (else `sku`), category `category`,
 * sub-category `subCategory`.
 */
export const RETAIL_FEED_FIELDS = ['product', 'category', 'sub-category'] as const;
export type RetailFeedField = (typeof RETAIL_FEED_FIELDS)[number];
export const RETAIL_FEED_QUERY_MAX = 255;
