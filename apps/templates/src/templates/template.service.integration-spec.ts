import sharp from 'sharp';
import {
  templateThumbnailObjectKey,
  TEMPLATE_CREATIVE_STYLES,
  TEMPLATE_INVENTORY_TYPES,
  TEMPLATE_PRODUCT_INFORMATION_SOURCES,
  TEMPLATE_PRODUCT_SELECTION_METHODS,
  TEMPLATE_TYPES,
} from '@contracts/domain';
import { naming } from '@platform/nats';
import { actingAs, createEventOutbox, TEST_PRINCIPAL } from '@platform/service';
import { createTemplatesServices } from '../templates.services';
import { openTemplatesTestBed, rejectionOf, type TemplatesTestBed } from '../templates.test-support';
import { layoutFor, TEMPLATE_CATALOG } from './template.catalog';
import { thumbnailKey } from './template.thumbnail';
import type { TemplateFilters, TemplateInput, TemplateRecord } from './template.model';

jest.setTimeout(60_000);

describe('TemplateService (real MariaDB)', () => {
  let bed: TemplatesTestBed;
  let nextAccount = 500;
  const freshAccount = () => nextAccount++;
  const ALL = { offset: 0, limit: 100 };
  const search = async (account: number, filters: TemplateFilters = {}) => (await bed.templates.search(account, filters, ALL)).items;
  const ids = (items: TemplateRecord[]) => items.map((t) => t.templateIdx);
  const custom = (name: string, overrides: Partial<TemplateInput> = {}): TemplateInput => ({
    templateName: name,
    retailerId: 900,
    inventoryType: 'onsite',
    adFormat: 'Display Banner',
    sourceOfProductInformation: 'Hybrid',
    productSelectionMethod: 'Fixed Product Selection',
    creativeStyle: ['Static Banner'],
    category: ['Toys'],
    templateType: ['Custom'],
    layouts: [layoutFor('300x250', { background: '#ffffff', text: '#000000', accent: '#ff0000' }, 'Hello', 'Go')],
    ...overrides,
  });

  beforeAll(async () => {
    bed = await openTemplatesTestBed('tpl');
  });

  afterAll(async () => {
    await bed?.close();
  });

  describe('the seeded catalog', () => {
    it('holds every System template once, in template_idx order, and seeding again keeps their indices', async () => {
      const before = await search(freshAccount());
      expect(before).toHaveLength(TEMPLATE_CATALOG.length);
      expect(TEMPLATE_CATALOG.length).toBeGreaterThanOrEqual(30);
      expect(ids(before)).toEqual([...ids(before)].sort((a, b) => a - b));
      expect(before.every((t) => t.ownership === 'System' && t.accountId === null)).toBe(true);
      await bed.templates.seedCatalog();
      expect(ids(await search(freshAccount()))).toEqual(ids(before));
    });

    it('covers every value of every filter enumeration', async () => {
      const all = await search(freshAccount());
      const values = (pick: (t: TemplateRecord) => string[]) => new Set(all.flatMap(pick));
      expect([...values((t) => [t.inventoryType])].sort()).toEqual([...TEMPLATE_INVENTORY_TYPES].sort());
      expect([...values((t) => [t.sourceOfProductInformation])].sort()).toEqual([...TEMPLATE_PRODUCT_INFORMATION_SOURCES].sort());
      expect([...values((t) => [t.productSelectionMethod])].sort()).toEqual([...TEMPLATE_PRODUCT_SELECTION_METHODS].sort());
      expect([...values((t) => t.creativeStyle)].sort()).toEqual([...TEMPLATE_CREATIVE_STYLES].sort());
      expect([...values((t) => t.templateType)].sort()).toEqual([...TEMPLATE_TYPES].sort());
      expect(values((t) => [String(t.retailerId)]).size).toBeGreaterThanOrEqual(3);
    });

    it('carries layouts only when asked for them', async () => {
      const account = freshAccount();
      const bare = (await bed.templates.search(account, {}, { offset: 0, limit: 3 })).items;
      expect(bare.map((t) => t.layouts)).toEqual([[], [], []]);
      const full = (await bed.templates.search(account, {}, { offset: 0, limit: 3 }, { includeLayouts: true })).items;
      expect(ids(full)).toEqual(ids(bare));
      expect(full.every((t) => t.layouts.map((l) => l.dimension).join() === t.dimensions.join())).toBe(true);
    });

    it('stores one PNG thumbnail per template in the bucket, under the content hash of its first layout', async () => {
      const [first] = (await bed.templates.search(freshAccount(), {}, { offset: 0, limit: 1 }, { includeLayouts: true })).items;
      expect(first.thumbnailKey).toMatch(/^[0-9a-f]{64}$/);
      expect(first.thumbnailKey).toBe(thumbnailKey(first.layouts[0]));
      const png = await bed.store.getObjectBuffer(templateThumbnailObjectKey(first.thumbnailKey));
      expect((await bed.store.statObject(templateThumbnailObjectKey(first.thumbnailKey)))?.contentType).toBe('image/png');
      const meta = await sharp(png).metadata();
      expect(meta.format).toBe('png');
      expect(Math.max(meta.width ?? 0, meta.height ?? 0)).toBe(240);
      // The background colour of the layout is what the corner pixel shows.
      const { data } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const hex = `#${[...data.subarray(0, 3)].map((n) => n.toString(16).padStart(2, '0')).join('')}`;
      expect(hex).toBe(first.layouts[0].backgroundColor.toLowerCase());
    });

    it('keys the same layout alike whatever order its members came in, and a changed layout differently', () => {
      const layout = TEMPLATE_CATALOG[0].layouts[0];
      const reordered = Object.fromEntries(Object.entries(layout).reverse()) as typeof layout;
      expect(thumbnailKey(reordered)).toBe(thumbnailKey(layout));
      expect(thumbnailKey({ ...layout, backgroundColor: '#000001' })).not.toBe(thumbnailKey(layout));
    });

    it('draws again at start a thumbnail the bucket lost, and keys rows stored without one', async () => {
      const [first] = await search(freshAccount());
      await bed.store.deleteObject(templateThumbnailObjectKey(first.thumbnailKey));
      await bed.db.knex('templates').where({ template_idx: first.templateIdx }).update({ thumbnail_key: null });
      expect(await bed.templates.assignThumbnailKeys()).toBe(1);
      expect(await bed.templates.drawMissingThumbnails()).toBe(1);
      const [again] = await search(freshAccount());
      expect(again.thumbnailKey).toBe(first.thumbnailKey);
      expect(await bed.store.statObject(templateThumbnailObjectKey(first.thumbnailKey))).not.toBeNull();
      expect(await bed.templates.drawMissingThumbnails()).toBe(0);
    });
  });

  describe('filters', () => {
    const catalog = () => search(freshAccount());

    it.each([
      ['inventoryType', 'onsite'],
      ['sourceOfProductInformation', 'Retailer Product Feed'],
      ['productSelectionMethod', 'Dynamic Product Selection'],
      ['adFormat', 'Native'],
      ['ownership', 'System'],
    ] as const)('%s = %s returns exactly the templates holding it', async (field, value) => {
      const all = await catalog();
      const expected = all.filter((t) => t[field] === value);
      expect(expected.length).toBeGreaterThan(0);
      expect(ids(await search(freshAccount(), { [field]: value }))).toEqual(ids(expected));
    });

    it('retailerId returns only that retailer', async () => {
      const all = await catalog();
      expect(ids(await search(freshAccount(), { retailerId: 102 }))).toEqual(ids(all.filter((t) => t.retailerId === 102)));
      expect(await search(freshAccount(), { retailerId: 99999 })).toEqual([]);
    });

    it.each([
      ['creativeStyle', ['Video', 'REC']],
      ['templateType', ['Geo Feed', 'Offer Feed']],
      ['category', ['Pets', 'Baby']],
    ] as const)('%s matches a template holding any of the listed values', async (field, wanted) => {
      const all = await catalog();
      const expected = all.filter((t) => t[field].some((v) => (wanted as readonly string[]).includes(v)));
      const single = all.filter((t) => t[field].includes(wanted[0]));
      expect(expected.length).toBeGreaterThan(single.length);
      expect(ids(await search(freshAccount(), { [field]: [...wanted] }))).toEqual(ids(expected));
      expect(ids(await search(freshAccount(), { [field]: [] }))).toEqual(ids(all));
    });

    it('campaignName is a case-insensitive substring of the name, with % and _ taken literally', async () => {
      const all = await catalog();
      expect(ids(await search(freshAccount(), { campaignName: 'fReShCo' }))).toEqual(ids(all.filter((t) => t.templateName.includes('FreshCo'))));
      expect(await search(freshAccount(), { campaignName: '%' })).toEqual([]);
      expect(await search(freshAccount(), { campaignName: '_' })).toEqual([]);
    });

    it('combines filters with AND', async () => {
      const all = await catalog();
      const filters: TemplateFilters = { retailerId: 101, inventoryType: 'offsite', creativeStyle: ['Static Banner', 'Video', 'Social'] };
      const expected = all.filter(
        (t) => t.retailerId === 101 && t.inventoryType === 'offsite' && t.creativeStyle.some((s) => ['Static Banner', 'Video', 'Social'].includes(s)),
      );
      expect(expected.length).toBeGreaterThan(0);
      expect(ids(await search(freshAccount(), filters))).toEqual(ids(expected));
    });

    it('refuses values outside the enumerations, naming each field', async () => {
      const refused = await rejectionOf(
        bed.templates.search(freshAccount(), { ownership: 'Mine', inventoryType: 'print', creativeStyle: ['Video', 'Hologram'], templateType: ['Nope'] }),
      );
      expect(refused).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
      expect((refused.errors as { pointer: string }[]).map((e) => e.pointer)).toEqual(['/ownership', '/inventoryType', '/creativeStyle/1', '/templateType/0']);
    });

    it('pages in template_idx order with the total', async () => {
      const account = freshAccount();
      const all = await search(account);
      const first = await bed.templates.search(account, {}, { offset: 0, limit: 10 });
      const last = await bed.templates.search(account, {}, { offset: 30, limit: 10 });
      expect(first.total).toBe(all.length);
      expect(ids(first.items)).toEqual(ids(all).slice(0, 10));
      expect(ids(last.items)).toEqual(ids(all).slice(30, 40));
    });
  });

  describe('custom templates', () => {
    it('are visible to their own account only, and filter by ownership', async () => {
      const owner = freshAccount();
      const other = freshAccount();
      const idx = await bed.templates.create(owner, custom('  My banner  '));
      const mine = await search(owner, { ownership: 'Custom' });
      expect(mine).toEqual([
        expect.objectContaining({ templateIdx: idx, templateName: 'My banner', ownership: 'Custom', accountId: owner, dimensions: ['300x250'] }),
      ]);
      expect(await search(other, { ownership: 'Custom' })).toEqual([]);
      expect(ids(await search(other))).not.toContain(idx);
      expect(ids(await search(owner, { category: ['toys'] }))).toEqual([idx]);
    });

    it('are visible (for peers checking a reference) to their account only; System templates to every account', async () => {
      const owner = freshAccount();
      const idx = await bed.templates.create(owner, custom('Referenced'));
      const [system] = await search(freshAccount());
      expect(await bed.templates.visibleTo(owner, idx)).toEqual({ templateName: 'Referenced' });
      expect(await bed.templates.visibleTo(freshAccount(), idx)).toBeUndefined();
      expect(await bed.templates.visibleTo(freshAccount(), system.templateIdx)).toEqual({ templateName: system.templateName });
      expect(await bed.templates.visibleTo(owner, 2 ** 31)).toBeUndefined();
    });

    it('refuses bad fields and bad layouts, storing nothing', async () => {
      const account = freshAccount();
      const base = custom('x');
      const layout = base.layouts[0];
      const refused = await rejectionOf(
        bed.templates.create(account, {
          ...base,
          templateName: ' ',
          inventoryType: 'tv',
          templateType: ['Nope'],
          layouts: [{ ...layout, backgroundColor: 'red', logo: { x: 250, y: 0, w: 100, h: 10 } }],
        }),
      );
      expect((refused.errors as { pointer: string }[]).map((e) => e.pointer)).toEqual([
        '/templateName',
        '/inventoryType',
        '/templateType/0',
        '/layouts/0/backgroundColor',
        '/layouts/0/logo',
      ]);
      expect(await search(account, { ownership: 'Custom' })).toEqual([]);
    });

    it("replaces only the account's own Custom templates, tags and thumbnail included, and refuses bad input changing nothing", async () => {
      const owner = freshAccount();
      const idx = await bed.templates.create(owner, custom('Old name'));
      const [before] = await search(owner, { ownership: 'Custom' });
      await bed.templates.update(owner, idx, { ...custom(' New name '), category: ['garden'], templateType: ['Standard'] });
      const [after] = await search(owner, { ownership: 'Custom' });
      expect(after).toMatchObject({ templateIdx: idx, templateName: 'New name', category: ['garden'], templateType: ['Standard'] });
      expect(after.thumbnailKey).toBe(before.thumbnailKey);
      const recoloured = custom('New name', { layouts: [layoutFor('300x250', { background: '#123456', text: '#000000', accent: '#ff0000' }, 'Hello', 'Go')] });
      await bed.templates.update(owner, idx, recoloured);
      const [redrawn] = await search(owner, { ownership: 'Custom' });
      expect(redrawn.thumbnailKey).not.toBe(before.thumbnailKey);
      expect(await bed.store.statObject(templateThumbnailObjectKey(redrawn.thumbnailKey))).not.toBeNull();
      await bed.templates.update(owner, idx, { ...custom(' New name '), category: ['garden'], templateType: ['Standard'] });
      expect(after.updatedAt.getTime()).toBeGreaterThanOrEqual(before.updatedAt.getTime());
      expect(ids(await search(owner, { category: ['toys'] }))).toEqual([]);
      expect(ids(await search(owner, { category: ['garden'] }))).toEqual([idx]);
      expect(await rejectionOf(bed.templates.update(freshAccount(), idx, custom('x')))).toMatchObject({ status: 404, code: 'TEMPLATE_NOT_FOUND' });
      const [system] = await search(owner, { ownership: 'System' });
      expect(await rejectionOf(bed.templates.update(owner, system.templateIdx, custom('x')))).toMatchObject({ status: 409, code: 'TEMPLATE_NOT_EDITABLE' });
      expect(await rejectionOf(bed.templates.update(owner, idx, { ...custom('x'), inventoryType: 'tv' }))).toMatchObject({ status: 400 });
      expect((await search(owner, { ownership: 'Custom' }))[0]).toMatchObject({ templateName: 'New name' });
    });

    it("deletes only the account's own Custom templates", async () => {
      const owner = freshAccount();
      const idx = await bed.templates.create(owner, custom('Doomed'));
      expect(await rejectionOf(bed.templates.delete(freshAccount(), idx))).toMatchObject({ status: 404, code: 'TEMPLATE_NOT_FOUND' });
      const [system] = await search(owner);
      expect(await rejectionOf(bed.templates.delete(owner, system.templateIdx))).toMatchObject({ status: 409, code: 'TEMPLATE_NOT_DELETABLE' });
      await bed.templates.delete(owner, idx);
      expect(await search(owner, { ownership: 'Custom' })).toEqual([]);
      expect(await rejectionOf(bed.templates.delete(owner, idx))).toMatchObject({ status: 404 });
    });
  });

  describe('cached search notices', () => {
    const noticesFor = (account: number) => bed.viewChanges.filter((change) => change.tenant === String(account));

    it("announces the account's search pages after each committed create, update, bookmark and delete, and nothing for a search or a refused write", async () => {
      const account = freshAccount();
      const templateIdx = await bed.templates.create(account, custom('Announced'));
      await bed.templates.update(account, templateIdx, custom('Announced again'));
      await bed.templates.setBookmark(account, templateIdx, true);
      await search(account);
      await rejectionOf(bed.templates.create(account, custom('')));
      await rejectionOf(bed.templates.delete(account, TEMPLATE_CATALOG.length + 1_000_000));
      await bed.templates.delete(account, templateIdx);
      expect(noticesFor(account)).toEqual(Array.from({ length: 4 }, () => ({ view: 'retail-templates', tenant: String(account) })));
    });
  });

  describe('counts', () => {
    it('are reused while the catalog is unchanged and follow every write, also one made by another replica', async () => {
      const account = freshAccount();
      const replica = actingAs(
        createTemplatesServices({ db: bed.db, store: bed.store, announceViewChange: async () => true, events: createEventOutbox(naming('')) }),
        TEST_PRINCIPAL,
      ).templates;
      const filters: TemplateFilters = { category: ['counted'] };
      const total = async () => (await bed.templates.search(account, filters, { offset: 0, limit: 1 })).total;
      expect(await total()).toBe(0);
      const first = await replica.create(account, custom('Counted one', { category: ['counted'] }));
      expect(await total()).toBe(1);
      const second = await replica.create(account, custom('Counted two', { category: ['counted'] }));
      expect(await total()).toBe(2);
      // A page past the end still reports the total.
      expect((await bed.templates.search(account, filters, { offset: 5, limit: 1 })).total).toBe(2);
      await replica.setBookmark(account, first, true);
      expect((await bed.templates.search(account, { ...filters, isBookmarked: true }, ALL)).total).toBe(1);
      await replica.setBookmark(account, first, false);
      expect((await bed.templates.search(account, { ...filters, isBookmarked: true }, ALL)).total).toBe(0);
      await replica.update(account, second, custom('Counted two', { category: ['elsewhere'] }));
      expect(await total()).toBe(1);
      await replica.delete(account, first);
      expect(await total()).toBe(0);
    });
  });

  describe('bookmarks', () => {
    it('are per account, idempotent, and drive the isBookmarked filter both ways', async () => {
      const account = freshAccount();
      const other = freshAccount();
      const [a, b] = await search(account);
      await bed.templates.setBookmark(account, a.templateIdx, true);
      await bed.templates.setBookmark(account, a.templateIdx, true);
      await bed.templates.setBookmark(account, b.templateIdx, true);
      expect(ids(await search(account, { isBookmarked: true }))).toEqual([a.templateIdx, b.templateIdx]);
      expect(ids(await search(account, { isBookmarked: false }))).not.toContain(a.templateIdx);
      expect((await search(account)).find((t) => t.templateIdx === a.templateIdx)?.isBookmarked).toBe(true);
      expect(await search(other, { isBookmarked: true })).toEqual([]);
      await bed.templates.setBookmark(account, a.templateIdx, false);
      await bed.templates.setBookmark(account, a.templateIdx, false);
      expect(ids(await search(account, { isBookmarked: true }))).toEqual([b.templateIdx]);
    });

    it("refuses another account's custom template and a missing one as not found", async () => {
      const idx = await bed.templates.create(freshAccount(), custom('Private'));
      expect(await rejectionOf(bed.templates.setBookmark(freshAccount(), idx, true))).toMatchObject({ status: 404, code: 'TEMPLATE_NOT_FOUND' });
      expect(await rejectionOf(bed.templates.setBookmark(freshAccount(), 10_000_000, true))).toMatchObject({ status: 404 });
    });
  });
});
