/**
 * Values of the content-creative domain (data signals, dynamic campaigns, content maps) that the
 * gateway and the service both need. Declared here once so the edge schema and the service's own
 * re-check cannot disagree.
 */

/** Operators a data-signal property may allow, as the catalog lists them. */
export const DATA_SIGNAL_OPERATORS = ['EQUALS', 'NOT_EQUALS', 'IN', 'NOT_IN', 'GREATER_THAN', 'LESS_THAN', 'BETWEEN', 'STARTS_WITH'] as const;
export type DataSignalOperator = (typeof DATA_SIGNAL_OPERATORS)[number];

/** What a property's signal value is: the operator's operand must be of this type. */
export const DATA_SIGNAL_VALUE_TYPES = ['string', 'number'] as const;
export type DataSignalValueType = (typeof DATA_SIGNAL_VALUE_TYPES)[number];

/**
 * An expression may name its operator as the catalog does (`GREATER_THAN`) or in the lower-case,
 * hyphenated form campaigns are often written in (`greater-than`); both mean the same operator.
 */
export function canonicalOperator(operator: string): string {
  return operator.trim().toUpperCase().replace(/-/g, '_');
}

/** How the expressions of a segment's condition combine. */
export const CONDITION_OPERATORS = ['and', 'or'] as const;

/**
 * Which matching segment serves: EQUAL_ROTATION spreads requests evenly over every segment that
 * matches; PRIORITY serves the first matching segment in the listed order.
 */
export const RULE_PRIORITIES = ['EQUAL_ROTATION', 'PRIORITY'] as const;

export const CAMPAIGN_NAME_MAX = 200;
export const CAMPAIGN_URL_MAX = 2048;
/** Asset ids, column names, creative master names, segment names, ad ids and titles. */
export const CAMPAIGN_TEXT_MAX = 200;
export const CAMPAIGN_ASSET_MAP_MAX = 100;
export const CAMPAIGN_DECISION_MAP_MAX = 100;
export const CAMPAIGN_SEGMENTS_MAX = 50;
export const CAMPAIGN_CREATIVE_MASTERS_MAX = 50;
export const CAMPAIGN_EXPRESSIONS_MAX = 20;
/** Items of an IN / NOT_IN / BETWEEN operand. */
export const EXPRESSION_VALUES_MAX = 100;
export const EXPRESSION_VALUE_MAX = 200;
/** Data-signal and property ids. */
export const DATA_SIGNAL_PROPERTY_ID_MAX = 64;

/** An expression's operand: one value, or a list for IN, NOT_IN and BETWEEN. */
export type ExpressionValue = string | number | (string | number)[];

/** A dynamic campaign's decision graph: audience segments, each a condition over data signals, and the creative masters they serve. */
export interface DecisionGraph {
  defaultCreativeMaster: string | null;
  rulePriority: string | null;
  segments: Segment[];
}

export interface Segment {
  name: string;
  creativeMasters: string[];
  condition: { operator: string; expressions: Expression[] };
}

export interface Expression {
  dataSignalServiceId: number;
  dataSignalPropertyId: string;
  operator: string;
  /** Checked by the rules: a string or number of the property's type, or a list for IN, NOT_IN and BETWEEN. */
  value: ExpressionValue;
}

/** Content kinds a content map can hold. `All` maps every product and is allowed only for social ad servers. */
export const CONTENT_TYPES = ['Product', 'Sub-category', 'Category', 'Creatives', 'All', 'Brand'] as const;
export type ContentType = (typeof CONTENT_TYPES)[number];

/**
 * The column of the content map's asset source (`dataServiceId`) a content value is looked up in,
 * per content type. Product uses the source's asset key column when it has one. Creatives are
 * creative names and `All` carries no values, so neither is looked up.
 */
export const CONTENT_TYPE_COLUMNS: Partial<Record<ContentType, string>> = {
  Product: 'sku',
  Category: 'category',
  'Sub-category': 'subCategory',
  Brand: 'brand',
};

/** Columns a content item's displayValue and productImageUrl are read from, first present wins. */
export const CONTENT_DISPLAY_COLUMNS = ['displayName', 'name', 'title', 'productName'] as const;
export const CONTENT_IMAGE_COLUMNS = ['productImageUrl', 'imageUrl', 'image', 'image_url'] as const;
/** Columns a creative (served or exported) reads its price, call to action and click-through from, first present wins. */
export const CONTENT_PRICE_COLUMNS = ['price', 'salePrice', 'sale_price', 'priceText'] as const;
export const CONTENT_CTA_COLUMNS = ['callToAction', 'cta', 'ctaText'] as const;
export const CONTENT_LANDING_COLUMNS = ['landingUrl', 'landingPageUrl', 'productUrl', 'clickUrl', 'link', 'url'] as const;

/** The first of `columns` that holds a non-empty scalar in the row, as text; null when none does. */
export function firstRowText(row: Record<string, unknown> | undefined, columns: readonly string[]): string | null {
  if (!row) return null;
  for (const column of columns) {
    const value = row[column];
    if ((typeof value === 'string' && value !== '') || typeof value === 'number') return String(value);
  }
  return null;
}

export const CONTENT_MAP_AD_GROUPS_MAX = 100;
export const CONTENT_MAP_PLACEMENTS_MAX = 200;
export const CONTENT_MAP_CONTENT_MAX = 100;
export const CONTENT_MAP_TEXT_MAX = 200;

/** Signal values one decision explain request may carry, and the length of its request id. */
export const EXPLAIN_SIGNALS_MAX = 50;
export const EXPLAIN_REQUEST_ID_MAX = 128;
