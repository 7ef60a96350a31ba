import type { SqlValue } from '@platform/mysql';
import type { TemplateFilters } from './template.model';

/**
 * Template search as SQL text and bindings, for prepared statements (`ServiceDatabase.execute`):
 * a search is the service's hot read, and building it with knex on every call cost more CPU than
 * MariaDB's own work for the page. The text depends only on which filters are given (and how many
 * values an any-of filter lists), so the statements a connection keeps stay few.
 */

/** Array fields whose values are also kept one per row in template_tags, for the any-of filters. */
export const TAG_KINDS = { creativeStyle: 'creativeStyle', category: 'category', templateType: 'templateType' } as const;

/** The catalog version as a column of a search statement, so it is read in the same snapshot as the rows. */
export const CATALOG_VERSION_COLUMN = '(SELECT version FROM template_catalog_version WHERE id = 1) AS catalog_version';

/** The narrow columns a page answers; layouts come from template_assets only when asked. */
const PAGE_COLUMNS = [
  ...['template_idx', 'account_id', 'ownership', 'template_name', 'retailer_id', 'inventory_type', 'ad_format'],
  ...['source_of_product_information', 'product_selection_method', 'creative_styles', 'categories', 'template_types'],
  ...['dimensions', 'thumbnail_key', 'created_at', 'updated_at'],
]
  .map((column) => `t.${column}`)
  .join(', ');

/** `%` and `_` in a searched name are literal characters, not wildcards. */
const likeEscape = (text: string) => text.replace(/[\\%_]/g, (ch) => `\\${ch}`);

const placeholders = (count: number) => Array.from({ length: count }, () => '?').join(', ');

interface Where {
  sql: string;
  values: SqlValue[];
}

/** The templates the account may see (System, and its own Custom ones) matching every given filter. */
function whereOf(accountId: number, filters: TemplateFilters): Where {
  const clauses = ['(t.account_id IS NULL OR t.account_id = ?)'];
  const values: SqlValue[] = [accountId];
  const equal = (column: string, value: string | number | undefined) => {
    if (value === undefined) return;
    clauses.push(`t.${column} = ?`);
    values.push(value);
  };
  if (filters.campaignName !== undefined) {
    clauses.push("t.template_name LIKE CONCAT('%', ?, '%')");
    values.push(likeEscape(filters.campaignName));
  }
  equal('ownership', filters.ownership);
  equal('retailer_id', filters.retailerId);
  equal('inventory_type', filters.inventoryType);
  equal('ad_format', filters.adFormat);
  equal('source_of_product_information', filters.sourceOfProductInformation);
  equal('product_selection_method', filters.productSelectionMethod);
  if (filters.isBookmarked !== undefined) {
    clauses.push(`${filters.isBookmarked ? '' : 'NOT '}EXISTS (SELECT 1 FROM template_bookmarks b WHERE b.account_id = ? AND b.template_idx = t.template_idx)`);
    values.push(accountId);
  }
  for (const [field, kind] of Object.entries(TAG_KINDS) as [keyof typeof TAG_KINDS, string][]) {
    const wanted = filters[field];
    if (wanted === undefined || wanted.length === 0) continue;
    clauses.push(`EXISTS (SELECT 1 FROM template_tags g WHERE g.template_idx = t.template_idx AND g.kind = ? AND g.value IN (${placeholders(wanted.length)}))`);
    values.push(kind, ...wanted);
  }
  return { sql: clauses.join(' AND '), values };
}

/**
 * One page in template_idx order, whether the account bookmarked each, and the catalog version. A page
 * with layouts joins template_assets on its primary key, so only the page's own rows read them.
 */
export function searchPageSql(accountId: number, filters: TemplateFilters, window: { offset: number; limit: number }, includeLayouts: boolean): Where {
  const where = whereOf(accountId, filters);
  const layouts = includeLayouts ? ', a.layouts' : '';
  const join = includeLayouts ? ' LEFT JOIN template_assets a ON a.template_idx = t.template_idx' : '';
  return {
    sql:
      `SELECT ${PAGE_COLUMNS}${layouts}, ` +
      'EXISTS (SELECT 1 FROM template_bookmarks b WHERE b.account_id = ? AND b.template_idx = t.template_idx) AS is_bookmarked, ' +
      `${CATALOG_VERSION_COLUMN} FROM templates t${join} WHERE ${where.sql} ORDER BY t.template_idx LIMIT ? OFFSET ?`,
    values: [accountId, ...where.values, window.limit, window.offset],
  };
}

/** How many templates the account may see match the filters, with the catalog version it counted at. */
export function searchCountSql(accountId: number, filters: TemplateFilters): Where {
  const where = whereOf(accountId, filters);
  return { sql: `SELECT COUNT(*) AS total, ${CATALOG_VERSION_COLUMN} FROM templates t WHERE ${where.sql}`, values: where.values };
}
