import type { Knex } from 'knex';
import type { TemplateLayout, TemplateOwnership } from '@contracts/domain';
import { readJsonColumn, writeJsonColumn, type PageWindow, type ServiceDatabase } from '@platform/mysql';
import type { NewTemplate, TemplateFilters, TemplateRecord } from './template.model';
import { searchCountSql, searchPageSql, TAG_KINDS } from './template.search-sql';

interface TemplateRow {
  template_idx: number;
  account_id: number | null;
  ownership: TemplateOwnership;
  template_name: string;
  retailer_id: number;
  inventory_type: string;
  ad_format: string;
  source_of_product_information: string;
  product_selection_method: string;
  creative_styles: string;
  categories: string;
  template_types: string;
  dimensions: string;
  /** Only when the search asked for layouts. */
  layouts?: string;
  thumbnail_key: string | null;
  created_at: Date;
  updated_at: Date;
  is_bookmarked: number;
}

const toRecord = (row: TemplateRow): TemplateRecord => ({
  templateIdx: Number(row.template_idx),
  templateName: row.template_name,
  ownership: row.ownership,
  accountId: row.account_id === null ? null : Number(row.account_id),
  isBookmarked: Number(row.is_bookmarked) === 1,
  retailerId: Number(row.retailer_id),
  inventoryType: row.inventory_type,
  adFormat: row.ad_format,
  sourceOfProductInformation: row.source_of_product_information,
  productSelectionMethod: row.product_selection_method,
  creativeStyle: readJsonColumn<string[]>(row.creative_styles) ?? [],
  category: readJsonColumn<string[]>(row.categories) ?? [],
  templateType: readJsonColumn<string[]>(row.template_types) ?? [],
  dimensions: readJsonColumn<string[]>(row.dimensions) ?? [],
  layouts: row.layouts === undefined ? [] : (readJsonColumn<TemplateLayout[]>(row.layouts) ?? []),
  thumbnailKey: row.thumbnail_key ?? '',
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** The narrow row every filter and count reads; layouts live in template_assets, the thumbnail in object storage. */
const columns = (template: NewTemplate) => ({
  catalog_key: template.catalogKey,
  account_id: template.accountId,
  ownership: template.ownership,
  template_name: template.templateName,
  retailer_id: template.retailerId,
  inventory_type: template.inventoryType,
  ad_format: template.adFormat,
  source_of_product_information: template.sourceOfProductInformation,
  product_selection_method: template.productSelectionMethod,
  creative_styles: writeJsonColumn(template.creativeStyle),
  categories: writeJsonColumn(template.category),
  template_types: writeJsonColumn(template.templateType),
  dimensions: writeJsonColumn(template.dimensions),
  thumbnail_key: template.thumbnailKey,
});

const assetColumns = (templateIdx: number, template: NewTemplate) => ({
  template_idx: templateIdx,
  layouts: writeJsonColumn(template.layouts),
});

/** Every write that can change a search's matches bumps the version in its own transaction (see the count cache). */
const bumpCatalogVersion = (trx: Knex.Transaction) => trx('template_catalog_version').where({ id: 1 }).increment('version', 1);

export class TemplateRepository {
  constructor(private readonly db: ServiceDatabase) {}

  /**
   * One page of the templates the account may see (System, and its own Custom ones) matching every
   * given filter, in template_idx order, with whether the account bookmarked each, and the catalog
   * version read in the same statement (so in the same snapshot as the rows).
   */
  async searchPage(
    accountId: number,
    filters: TemplateFilters,
    window: PageWindow,
    includeLayouts = false,
  ): Promise<{ items: TemplateRecord[]; catalogVersion: number }> {
    const page = searchPageSql(accountId, filters, window, includeLayouts);
    const rows = await this.db.execute<TemplateRow & { catalog_version: number | string }>(page.sql, page.values);
    if (rows.length > 0) return { items: rows.map(toRecord), catalogVersion: Number(rows[0]?.catalog_version) };
    return { items: [], catalogVersion: await this.catalogVersion() };
  }

  /** How many templates the account may see match the filters, with the catalog version it counted at. */
  async searchCount(accountId: number, filters: TemplateFilters): Promise<{ total: number; catalogVersion: number }> {
    const count = searchCountSql(accountId, filters);
    const [row] = await this.db.execute<{ total: number | string; catalog_version: number | string }>(count.sql, count.values);
    return { total: Number(row?.total ?? 0), catalogVersion: Number(row?.catalog_version ?? 0) };
  }

  async catalogVersion(): Promise<number> {
    const row: { version: number | string } | undefined = await this.db.knex('template_catalog_version').where({ id: 1 }).first('version');
    return Number(row?.version ?? 0);
  }

  /** Inserts or updates each System template by its catalog key, its tags replaced, in the caller's transaction. */
  async upsertCatalog(trx: Knex.Transaction, templates: readonly NewTemplate[]): Promise<void> {
    for (const template of templates) {
      const row = columns(template);
      await trx('templates')
        .insert(row)
        .onConflict('catalog_key')
        .merge({ ...row, updated_at: trx.raw('CURRENT_TIMESTAMP(3)') });
      const stored: { template_idx: number } = await trx('templates').where({ catalog_key: template.catalogKey }).first('template_idx');
      const assets = assetColumns(Number(stored.template_idx), template);
      await trx('template_assets').insert(assets).onConflict('template_idx').merge(assets);
      await this.replaceTags(trx, Number(stored.template_idx), template);
    }
    await bumpCatalogVersion(trx);
  }

  async insert(trx: Knex.Transaction, template: NewTemplate): Promise<number> {
    const [id] = await trx('templates').insert(columns(template));
    await trx('template_assets').insert(assetColumns(Number(id), template));
    await this.replaceTags(trx, Number(id), template);
    await bumpCatalogVersion(trx);
    return Number(id);
  }

  /** Replaces an account's own Custom template, tags and assets, in the caller's transaction; false when there was none. */
  async updateCustom(trx: Knex.Transaction, accountId: number, templateIdx: number, template: NewTemplate): Promise<boolean> {
    const updated = await trx('templates')
      .where({ template_idx: templateIdx, account_id: accountId, ownership: 'Custom' })
      .update({ ...columns(template), updated_at: trx.raw('CURRENT_TIMESTAMP(3)') });
    if (updated === 0) return false;
    const assets = assetColumns(templateIdx, template);
    await trx('template_assets').insert(assets).onConflict('template_idx').merge(assets);
    await this.replaceTags(trx, templateIdx, template);
    await bumpCatalogVersion(trx);
    return true;
  }

  /**
   * An account's Custom template as the transaction changing it sees it (row locked), layouts included:
   * the audit trail's before and after. Bookmarks are the account's view of it, not the template, so left out.
   */
  async findForChange(trx: Knex.Transaction, accountId: number, templateIdx: number): Promise<Omit<TemplateRecord, 'isBookmarked'> | undefined> {
    const [rows] = (await trx.raw(
      `SELECT t.*, a.layouts, 0 AS is_bookmarked FROM templates t LEFT JOIN template_assets a ON a.template_idx = t.template_idx
       WHERE t.template_idx = ? AND t.account_id = ? AND t.ownership = 'Custom' FOR UPDATE`,
      [templateIdx, accountId],
    )) as [TemplateRow[]];
    if (!rows[0]) return undefined;
    const record: Partial<TemplateRecord> = toRecord(rows[0]);
    delete record.isBookmarked;
    return record as Omit<TemplateRecord, 'isBookmarked'>;
  }

  /** Who owns a template: undefined when missing, null account for System. */
  async owner(templateIdx: number): Promise<{ accountId: number | null; templateName: string } | undefined> {
    const row: { account_id: number | null; template_name: string } | undefined = await this.db
      .knex('templates')
      .where({ template_idx: templateIdx })
      .first('account_id', 'template_name');
    return row && { accountId: row.account_id === null ? null : Number(row.account_id), templateName: row.template_name };
  }

  /** The account's bookmark of a template as a change in `trx` sees it, row locked, for the audit trail. */
  async findBookmarkForChange(
    trx: Knex.Transaction,
    accountId: number,
    templateIdx: number,
  ): Promise<{ accountId: number; templateIdx: number; createdAt: Date } | undefined> {
    const row = (await trx('template_bookmarks').where({ account_id: accountId, template_idx: templateIdx }).forUpdate().first()) as
      { account_id: number; template_idx: number; created_at: Date } | undefined;
    return row && { accountId: Number(row.account_id), templateIdx: Number(row.template_idx), createdAt: row.created_at };
  }

  async setBookmark(trx: Knex.Transaction, accountId: number, templateIdx: number, bookmarked: boolean): Promise<void> {
    const changed = bookmarked
      ? (await trx.raw('INSERT IGNORE INTO template_bookmarks (account_id, template_idx) VALUES (?, ?)', [accountId, templateIdx]))[0].affectedRows
      : await trx('template_bookmarks').where({ account_id: accountId, template_idx: templateIdx }).delete();
    // isBookmarked filters on bookmarks, so a change moves counts; a repeated call changes nothing.
    if (changed > 0) await bumpCatalogVersion(trx);
  }

  /** Deletes an account's own Custom template (tags and bookmarks go with it); false when there was none. */
  async deleteCustom(trx: Knex.Transaction, accountId: number, templateIdx: number): Promise<boolean> {
    const deleted = await trx('templates').where({ template_idx: templateIdx, account_id: accountId, ownership: 'Custom' }).delete();
    if (deleted > 0) await bumpCatalogVersion(trx);
    return deleted > 0;
  }

  /** Up to `limit` templates stored without a thumbnail key, after `afterIdx`, with their first layout. */
  async withoutThumbnailKey(afterIdx: number, limit: number): Promise<{ templateIdx: number; layout: TemplateLayout | undefined }[]> {
    const rows: { template_idx: number; first_layout: string | null }[] = await this.db
      .knex('templates as t')
      .join('template_assets as a', 'a.template_idx', 't.template_idx')
      .whereNull('t.thumbnail_key')
      .andWhere('t.template_idx', '>', afterIdx)
      .orderBy('t.template_idx')
      .limit(limit)
      .select('t.template_idx', this.db.knex.raw("JSON_EXTRACT(a.layouts, '$[0]') AS first_layout"));
    return rows.map((row) => ({ templateIdx: Number(row.template_idx), layout: readJsonColumn<TemplateLayout>(row.first_layout) ?? undefined }));
  }

  /** Records thumbnail keys computed for stored templates; the key follows from the layout, so nothing a search counts changes. */
  async setThumbnailKeys(trx: Knex.Transaction, keys: readonly { templateIdx: number; thumbnailKey: string }[]): Promise<void> {
    for (const { templateIdx, thumbnailKey } of keys) await trx('templates').where({ template_idx: templateIdx }).update({ thumbnail_key: thumbnailKey });
  }

  /** Every thumbnail key in use, each with one template that shows it. */
  async thumbnailKeysInUse(): Promise<Map<string, number>> {
    const rows: { thumbnail_key: string; template_idx: number }[] = await this.db
      .knex('templates')
      .whereNotNull('thumbnail_key')
      .groupBy('thumbnail_key')
      .select('thumbnail_key', this.db.knex.raw('MIN(template_idx) AS template_idx'));
    return new Map(rows.map((row) => [row.thumbnail_key, Number(row.template_idx)]));
  }

  /** What a creative is drawn from: the template's owner, styles, types and every layout; undefined when missing. */
  async renderingOf(
    templateIdx: number,
  ): Promise<{ accountId: number | null; creativeStyle: string[]; templateType: string[]; layouts: TemplateLayout[] } | undefined> {
    const row: { account_id: number | null; creative_styles: string; template_types: string; layouts: string | null } | undefined = await this.db
      .knex('templates as t')
      .leftJoin('template_assets as a', 'a.template_idx', 't.template_idx')
      .where('t.template_idx', templateIdx)
      .first('t.account_id', 't.creative_styles', 't.template_types', 'a.layouts');
    return (
      row && {
        accountId: row.account_id === null ? null : Number(row.account_id),
        creativeStyle: readJsonColumn<string[]>(row.creative_styles) ?? [],
        templateType: readJsonColumn<string[]>(row.template_types) ?? [],
        layouts: readJsonColumn<TemplateLayout[]>(row.layouts) ?? [],
      }
    );
  }

  /** The first layout of each template asked for. */
  async firstLayouts(templateIdxs: readonly number[]): Promise<Map<number, TemplateLayout>> {
    if (templateIdxs.length === 0) return new Map();
    const rows: { template_idx: number; first_layout: string | null }[] = await this.db
      .knex('template_assets')
      .whereIn('template_idx', templateIdxs)
      .select('template_idx', this.db.knex.raw("JSON_EXTRACT(layouts, '$[0]') AS first_layout"));
    return new Map(
      rows.flatMap((row) => {
        const layout = readJsonColumn<TemplateLayout>(row.first_layout);
        return layout ? [[Number(row.template_idx), layout] as const] : [];
      }),
    );
  }

  private async replaceTags(trx: Knex.Transaction, templateIdx: number, template: NewTemplate): Promise<void> {
    await trx('template_tags').where({ template_idx: templateIdx }).delete();
    const rows = (Object.entries(TAG_KINDS) as [keyof typeof TAG_KINDS, string][]).flatMap(([field, kind]) =>
      // The value column compares case-insensitively, so values differing only in case are one tag.
      [...new Map(template[field].map((value) => [value.toLowerCase(), value])).values()].map((value) => ({ template_idx: templateIdx, kind, value })),
    );
    if (rows.length > 0) await trx('template_tags').insert(rows);
  }
}
