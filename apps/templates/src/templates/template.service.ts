import {
  CACHED_VIEWS,
  effectivePage,
  parseDimension,
  TEMPLATE_AD_FORMAT_MAX,
  TEMPLATE_CATEGORY_MAX,
  TEMPLATE_COLOR_PATTERN,
  TEMPLATE_CREATIVE_STYLES,
  TEMPLATE_FONT_SIZE_MAX,
  TEMPLATE_INVENTORY_TYPES,
  TEMPLATE_LAYOUTS_MAX,
  TEMPLATE_LIST_MAX_ITEMS,
  TEMPLATE_NAME_MAX,
  TEMPLATE_OWNERSHIPS,
  TEMPLATE_PRODUCT_INFORMATION_SOURCES,
  TEMPLATE_PRODUCT_SELECTION_METHODS,
  TEMPLATE_TEXT_MAX,
  TEMPLATE_TYPES,
  type TemplateBox,
  type TemplateLayout,
} from '@contracts/domain';
import { type FieldError, notOneOf, problem, validationFailed } from '@platform/errors';
import type { Knex } from 'knex';
import { withTransaction, type Page } from '@platform/mysql';
import { recordChange, type EventOutbox, type ViewChangeAnnouncer } from '@platform/service';
import { TEMPLATE_CATALOG, type CatalogTemplate } from './template.catalog';
import type { NewTemplate, TemplateFilters, TemplateInput, TemplateRecord } from './template.model';
import { TemplateCountCache } from './template.count-cache';
import type { TemplateRepository } from './template.repository';
import { thumbnailKey } from './template.thumbnail';
import type { TemplateThumbnails } from './template.thumbnail-store';

/** Templates keyed, and thumbnails drawn, per round trip while restoring them at start. */
const THUMBNAIL_BATCH = 500;

export const templateNotFound = (templateIdx: number) => problem('TEMPLATE_NOT_FOUND', `Template ${templateIdx} was not found.`);

const allOf = (pointer: string, allowed: readonly string[], values: readonly string[] | undefined): FieldError[] =>
  (values ?? []).flatMap((value, i) => notOneOf(`${pointer}/${i}`, value, allowed));

const tooMany = (pointer: string, values: readonly unknown[] | undefined, max: number): FieldError[] =>
  (values?.length ?? 0) > max ? [{ pointer, code: 'TOO_MANY_ITEMS', detail: `${pointer.slice(1)} may hold at most ${max} items.` }] : [];

const text = (pointer: string, value: string | undefined, max: number, required = true): FieldError[] => {
  if (value === undefined) return [];
  if (required && value.trim().length === 0) return [{ pointer, code: 'REQUIRED', detail: `${pointer.slice(1)} must not be blank.` }];
  return value.length > max ? [{ pointer, code: 'TOO_LONG', detail: `${pointer.slice(1)} must be at most ${max} characters.` }] : [];
};

/** Filter rules, re-checked here because the gateway is not the service's only caller. */
export function filterErrors(filters: TemplateFilters): FieldError[] {
  return [
    ...text('/campaignName', filters.campaignName, TEMPLATE_NAME_MAX, false),
    ...notOneOf('/ownership', filters.ownership, TEMPLATE_OWNERSHIPS),
    ...notOneOf('/inventoryType', filters.inventoryType, TEMPLATE_INVENTORY_TYPES),
    ...text('/adFormat', filters.adFormat, TEMPLATE_AD_FORMAT_MAX, false),
    ...notOneOf('/sourceOfProductInformation', filters.sourceOfProductInformation, TEMPLATE_PRODUCT_INFORMATION_SOURCES),
    ...notOneOf('/productSelectionMethod', filters.productSelectionMethod, TEMPLATE_PRODUCT_SELECTION_METHODS),
    ...tooMany('/creativeStyle', filters.creativeStyle, TEMPLATE_LIST_MAX_ITEMS),
    ...allOf('/creativeStyle', TEMPLATE_CREATIVE_STYLES, filters.creativeStyle),
    ...tooMany('/category', filters.category, TEMPLATE_LIST_MAX_ITEMS),
    ...(filters.category ?? []).flatMap((c, i) => text(`/category/${i}`, c, TEMPLATE_CATEGORY_MAX, false)),
    ...tooMany('/templateType', filters.templateType, TEMPLATE_LIST_MAX_ITEMS),
    ...allOf('/templateType', TEMPLATE_TYPES, filters.templateType),
  ];
}

function boxErrors(pointer: string, box: TemplateBox | undefined, canvas: { width: number; height: number }): FieldError[] {
  if (!box) return [{ pointer, code: 'REQUIRED', detail: `${pointer.slice(1)} is required.` }];
  const inside = [box.x, box.y, box.w, box.h].every((n) => Number.isInteger(n) && n >= 0) && box.w > 0 && box.h > 0;
  if (inside && box.x + box.w <= canvas.width && box.y + box.h <= canvas.height) return [];
  return [{ pointer, code: 'OUT_OF_RANGE', detail: `${pointer.slice(1)} must lie inside the ${canvas.width}x${canvas.height} canvas.` }];
}

function colorErrors(pointer: string, color: string | undefined): FieldError[] {
  return color !== undefined && new RegExp(TEMPLATE_COLOR_PATTERN).test(color)
    ? []
    : [{ pointer, code: 'INVALID_FORMAT', detail: `${pointer.slice(1)} must be a #rrggbb colour.` }];
}

export function layoutErrors(layouts: readonly TemplateLayout[]): FieldError[] {
  if (layouts.length === 0) return [{ pointer: '/layouts', code: 'REQUIRED', detail: 'layouts must hold at least one layout.' }];
  if (layouts.length > TEMPLATE_LAYOUTS_MAX)
    return [{ pointer: '/layouts', code: 'TOO_MANY_ITEMS', detail: `layouts may hold at most ${TEMPLATE_LAYOUTS_MAX} items.` }];
  const seen = new Set<string>();
  return layouts.flatMap((layout, i): FieldError[] => {
    const at = `/layouts/${i}`;
    const canvas = parseDimension(layout.dimension);
    if (!canvas) return [{ pointer: `${at}/dimension`, code: 'INVALID_FORMAT', detail: 'dimension must be <width>x<height> in pixels.' }];
    if (seen.has(layout.dimension)) return [{ pointer: `${at}/dimension`, code: 'DUPLICATE', detail: `dimension ${layout.dimension} is laid out twice.` }];
    seen.add(layout.dimension);
    const element = (name: 'headline' | 'price' | 'callToAction'): FieldError[] => {
      const e = layout[name];
      if (!e) return [{ pointer: `${at}/${name}`, code: 'REQUIRED', detail: `${name} is required.` }];
      const fontOk = Number.isInteger(e.fontSize) && e.fontSize >= 1 && e.fontSize <= TEMPLATE_FONT_SIZE_MAX;
      return [
        ...boxErrors(`${at}/${name}/box`, e.box, canvas),
        ...colorErrors(`${at}/${name}/color`, e.color),
        ...(fontOk ? [] : [{ pointer: `${at}/${name}/fontSize`, code: 'OUT_OF_RANGE' as const, detail: `fontSize must be 1 to ${TEMPLATE_FONT_SIZE_MAX}.` }]),
        ...text(`${at}/${name}/text`, e.text, TEMPLATE_TEXT_MAX, false),
      ];
    };
    return [
      ...colorErrors(`${at}/backgroundColor`, layout.backgroundColor),
      ...boxErrors(`${at}/logo`, layout.logo, canvas),
      ...boxErrors(`${at}/productImage`, layout.productImage, canvas),
      ...element('headline'),
      ...element('price'),
      ...element('callToAction'),
      ...(layout.callToAction ? colorErrors(`${at}/callToAction/backgroundColor`, layout.callToAction.backgroundColor) : []),
    ];
  });
}

function inputErrors(input: TemplateInput): FieldError[] {
  const required = (pointer: string, value: string): FieldError[] =>
    value.trim() === '' ? [{ pointer, code: 'REQUIRED', detail: `${pointer.slice(1)} is required.` }] : [];
  return [
    ...text('/templateName', input.templateName, TEMPLATE_NAME_MAX),
    ...(Number.isSafeInteger(input.retailerId) && input.retailerId >= 1
      ? []
      : [{ pointer: '/retailerId', code: 'OUT_OF_RANGE' as const, detail: 'retailerId must be a positive integer.' }]),
    ...required('/inventoryType', input.inventoryType),
    ...notOneOf('/inventoryType', input.inventoryType || undefined, TEMPLATE_INVENTORY_TYPES),
    ...text('/adFormat', input.adFormat, TEMPLATE_AD_FORMAT_MAX),
    ...required('/sourceOfProductInformation', input.sourceOfProductInformation),
    ...notOneOf('/sourceOfProductInformation', input.sourceOfProductInformation || undefined, TEMPLATE_PRODUCT_INFORMATION_SOURCES),
    ...required('/productSelectionMethod', input.productSelectionMethod),
    ...notOneOf('/productSelectionMethod', input.productSelectionMethod || undefined, TEMPLATE_PRODUCT_SELECTION_METHODS),
    ...tooMany('/creativeStyle', input.creativeStyle, TEMPLATE_LIST_MAX_ITEMS),
    ...allOf('/creativeStyle', TEMPLATE_CREATIVE_STYLES, input.creativeStyle),
    ...tooMany('/category', input.category, TEMPLATE_LIST_MAX_ITEMS),
    ...input.category.flatMap((c, i) => text(`/category/${i}`, c, TEMPLATE_CATEGORY_MAX)),
    ...tooMany('/templateType', input.templateType, TEMPLATE_LIST_MAX_ITEMS),
    ...allOf('/templateType', TEMPLATE_TYPES, input.templateType),
    ...layoutErrors(input.layouts),
  ];
}

/**
 * Retail templates: the System catalog every account sees and each account's own Custom ones. The
 * gateway validates shapes; every rule is re-checked here because other callers may reach the service.
 */
/** System templates are every account's; a Custom one is its own account's alone. */
const isVisibleTo = (owner: { accountId: number | null }, accountId: number) => owner.accountId === null || owner.accountId === accountId;

export class TemplateService {
  private readonly counts = new TemplateCountCache();

  constructor(
    private readonly knex: Knex,
    private readonly templates: TemplateRepository,
    private readonly thumbnails: TemplateThumbnails,
    /** Tells the gateways that an account's cached search pages are stale; awaited after each commit, before answering. */
    private readonly announceViewChange: ViewChangeAnnouncer,
    private readonly events: EventOutbox,
  ) {}

  /**
   * Stores the shipped catalog (idempotent: System templates keep their index across starts). Their
   * thumbnails are drawn by restoreThumbnails, which draws only those the bucket lacks.
   */
  async seedCatalog(catalog: readonly CatalogTemplate[] = TEMPLATE_CATALOG): Promise<void> {
    const errors = catalog.flatMap((t) => inputErrors(t).map((e) => `${t.catalogKey}: ${e.detail}`));
    if (errors.length > 0) throw new Error(`The template catalog is invalid: ${errors.join('; ')}`);
    const rows = catalog.map((t) =>
      this.toNew(t, { catalogKey: t.catalogKey, accountId: null, ownership: 'System' }, thumbnailKey(t.layouts[0] as TemplateLayout)),
    );
    await withTransaction(this.knex, (trx) => this.templates.upsertCatalog(trx, rows));
  }

  /**
   * Run at every start: gives every stored template its thumbnail key (rows stored before thumbnails
   * moved to object storage have none). The key follows from the layout, so this needs no drawing.
   */
  async assignThumbnailKeys(): Promise<number> {
    let keyed = 0;
    for (let after = 0; ;) {
      const batch = await this.templates.withoutThumbnailKey(after, THUMBNAIL_BATCH);
      if (batch.length === 0) return keyed;
      after = batch[batch.length - 1]?.templateIdx ?? after;
      const keys = batch.flatMap(({ templateIdx, layout }) => (layout ? [{ templateIdx, thumbnailKey: thumbnailKey(layout) }] : []));
      await withTransaction(this.knex, (trx) => this.templates.setThumbnailKeys(trx, keys));
      keyed += keys.length;
    }
  }

  /**
   * Run at every start, after assignThumbnailKeys: draws each thumbnail in use that the bucket lacks,
   * under the key its rows already name. Besides create and update, this is the only place thumbnails
   * are drawn; a search never draws.
   */
  async drawMissingThumbnails(): Promise<number> {
    await this.thumbnails.ensureBucket();
    const stored = await this.thumbnails.storedKeys();
    const missing = [...(await this.templates.thumbnailKeysInUse())].filter(([key]) => !stored.has(key));
    let drawn = 0;
    for (let at = 0; at < missing.length; at += THUMBNAIL_BATCH) {
      const slice = missing.slice(at, at + THUMBNAIL_BATCH);
      const layouts = await this.templates.firstLayouts(slice.map(([, templateIdx]) => templateIdx));
      for (const [key, templateIdx] of slice) {
        const layout = layouts.get(templateIdx);
        if (!layout) continue;
        await this.thumbnails.storeAs(key, layout);
        drawn++;
      }
    }
    return drawn;
  }

  async search(
    accountId: number,
    filters: TemplateFilters,
    page?: { offset?: number; limit?: number },
    options: { includeLayouts?: boolean } = {},
  ): Promise<Page<TemplateRecord>> {
    const errors = filterErrors(filters);
    if (errors.length > 0) throw validationFailed(errors);
    const window = effectivePage(page);
    const includeLayouts = options.includeLayouts === true;
    const key = TemplateCountCache.key(accountId, filters);
    if (!this.counts.has(key)) {
      // Never counted here: page and count side by side, as fast as the slower of the two.
      const [found, counted] = await Promise.all([
        this.templates.searchPage(accountId, filters, window, includeLayouts),
        this.templates.searchCount(accountId, filters),
      ]);
      this.remember(key, counted);
      return { items: found.items, total: counted.total };
    }
    const found = await this.templates.searchPage(accountId, filters, window, includeLayouts);
    const cached = this.counts.get(key, found.catalogVersion);
    if (cached !== undefined) return { items: found.items, total: cached };
    const counted = await this.templates.searchCount(accountId, filters);
    this.remember(key, counted);
    return { items: found.items, total: counted.total };
  }

  /** Each count is kept under the version it read in its own statement, so it is reused only while nothing changed. */
  private remember(key: string, counted: { total: number; catalogVersion: number }): void {
    this.counts.set(key, counted.catalogVersion, counted.total);
  }

  async create(accountId: number, input: TemplateInput): Promise<number> {
    const errors = inputErrors(input);
    if (errors.length > 0) throw validationFailed(errors);
    // Stored before the row, so a template's thumbnail URL never names a missing object.
    const key = await this.thumbnails.store(input.layouts[0] as TemplateLayout);
    const template = this.toNew({ ...input, templateName: input.templateName.trim() }, { catalogKey: null, accountId, ownership: 'Custom' }, key);
    const templateIdx = await withTransaction(this.knex, async (trx) => {
      const idx = await this.templates.insert(trx, template);
      const after = await this.templates.findForChange(trx, accountId, idx);
      await recordChange(trx, this.events, { resourceType: 'custom-template', resourceId: idx, action: 'create', accountId, after });
      return idx;
    });
    await this.searchChanged(accountId);
    return templateIdx;
  }

  /** Replaces one of the account's own Custom templates; the rules are those of create, and System templates are not the account's to change. */
  async update(accountId: number, templateIdx: number, input: TemplateInput): Promise<void> {
    const errors = inputErrors(input);
    if (errors.length > 0) throw validationFailed(errors);
    const owner = await this.visibleOwner(accountId, templateIdx);
    if (owner.accountId === null) throw problem('TEMPLATE_NOT_EDITABLE', `Template ${templateIdx} is a System template; only Custom templates can be changed.`);
    // A changed first layout is a new key and a new object; the old object stays (another template may show it).
    const key = await this.thumbnails.store(input.layouts[0] as TemplateLayout);
    const template = this.toNew({ ...input, templateName: input.templateName.trim() }, { catalogKey: null, accountId, ownership: 'Custom' }, key);
    await withTransaction(this.knex, async (trx) => {
      const before = await this.templates.findForChange(trx, accountId, templateIdx);
      if (!before || !(await this.templates.updateCustom(trx, accountId, templateIdx, template))) throw templateNotFound(templateIdx);
      const after = await this.templates.findForChange(trx, accountId, templateIdx);
      await recordChange(trx, this.events, { resourceType: 'custom-template', resourceId: templateIdx, action: 'update', accountId, before, after });
    });
    await this.searchChanged(accountId);
  }

  /** The template's name when the account can see it (a System template or one of its own Custom ones), else undefined. */
  async visibleTo(accountId: number, templateIdx: number): Promise<{ templateName: string } | undefined> {
    const owner = await this.templates.owner(templateIdx);
    return owner && isVisibleTo(owner, accountId) ? { templateName: owner.templateName } : undefined;
  }

  /** A template's layouts and styles when the account can see it, for drawing its creatives; else undefined. */
  async renderingFor(
    accountId: number,
    templateIdx: number,
  ): Promise<{ creativeStyle: string[]; templateType: string[]; layouts: TemplateLayout[] } | undefined> {
    const template = await this.templates.renderingOf(templateIdx);
    if (!template || !isVisibleTo(template, accountId)) return undefined;
    return { creativeStyle: template.creativeStyle, templateType: template.templateType, layouts: template.layouts };
  }

  /** Bookmarks (or un-bookmarks) a template the account can see; idempotent either way. */
  async setBookmark(accountId: number, templateIdx: number, bookmarked: boolean): Promise<void> {
    await this.visibleOwner(accountId, templateIdx);
    await withTransaction(this.knex, async (trx) => {
      const before = await this.templates.findBookmarkForChange(trx, accountId, templateIdx);
      await this.templates.setBookmark(trx, accountId, templateIdx, bookmarked);
      const after = await this.templates.findBookmarkForChange(trx, accountId, templateIdx);
      // A repeated call changes nothing, so it leaves no entry either.
      if (Boolean(before) === Boolean(after)) return;
      await recordChange(trx, this.events, {
        resourceType: 'template-bookmark',
        resourceId: templateIdx,
        action: after ? 'create' : 'delete',
        accountId,
        before,
        after,
      });
    });
    await this.searchChanged(accountId);
  }

  /** Deletes one of the account's own Custom templates; System templates are not the account's to delete. */
  async delete(accountId: number, templateIdx: number): Promise<void> {
    const owner = await this.visibleOwner(accountId, templateIdx);
    if (owner.accountId === null)
      throw problem('TEMPLATE_NOT_DELETABLE', `Template ${templateIdx} is a System template; only Custom templates can be deleted.`);
    await withTransaction(this.knex, async (trx) => {
      const before = await this.templates.findForChange(trx, accountId, templateIdx);
      if (!before || !(await this.templates.deleteCustom(trx, accountId, templateIdx))) throw templateNotFound(templateIdx);
      await recordChange(trx, this.events, { resourceType: 'custom-template', resourceId: templateIdx, action: 'delete', accountId, before });
    });
    await this.searchChanged(accountId);
  }

  /**
   * After the commit: a notice sent earlier could let a gateway refill its cache from the old rows.
   * Only the account's own pages change: its Custom templates and bookmarks are seen by no other account.
   */
  private async searchChanged(accountId: number): Promise<void> {
    await this.announceViewChange({ view: CACHED_VIEWS.retailTemplates, tenant: String(accountId) });
  }

  /** The template's owner when the account can see it; a template it cannot see is not found, as a missing one. */
  private async visibleOwner(accountId: number, templateIdx: number): Promise<{ accountId: number | null; templateName: string }> {
    const owner = await this.templates.owner(templateIdx);
    if (!owner || !isVisibleTo(owner, accountId)) throw templateNotFound(templateIdx);
    return owner;
  }

  private toNew(input: TemplateInput, owner: Pick<NewTemplate, 'catalogKey' | 'accountId' | 'ownership'>, key: string): NewTemplate {
    return { ...input, ...owner, dimensions: input.layouts.map((l) => l.dimension), thumbnailKey: key };
  }
}
