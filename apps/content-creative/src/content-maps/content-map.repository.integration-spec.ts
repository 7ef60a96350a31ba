import { withTransaction } from '@platform/mysql';
import { openContentCreativeTestBed, type ContentCreativeTestBed } from '../content-creative.test-support';
import type { ContentMapKey, StoredContentMap, StoredPlacement } from './content-map.model';
import { ContentMapRepository } from './content-map.repository';

jest.setTimeout(60_000);

const placement = (adGroupId: number, placementId: number, content: string[]): StoredPlacement => ({
  adGroupId,
  adGroupName: adGroupId ? `Group ${adGroupId}` : null,
  status: adGroupId ? 'Active' : null,
  placementId,
  externalPlacementId: null,
  placementName: null,
  dimension: null,
  siteId: null,
  content,
});

describe('ContentMapRepository (real MariaDB)', () => {
  let bed: ContentCreativeTestBed;
  let repo: ContentMapRepository;
  let nextPlan = 1;
  const freshKey = (): ContentMapKey => ({ accountId: 900, retailCampaignId: 5, mediaPlanId: nextPlan++ });
  const header = { contentType: 'Product' as const, dataServiceId: 42, lookupColumn: 'sku' };
  /** A save as the service makes it: the replacement is its own transaction. */
  const replace = (key: ContentMapKey, map: Omit<StoredContentMap, 'numOfCards'>, placements: StoredPlacement[]) =>
    withTransaction(bed.db.knex, (trx) => repo.replace(trx, key, map, placements));

  beforeAll(async () => {
    bed = await openContentCreativeTestBed('cm');
    repo = new ContentMapRepository(bed.db);
  });

  afterAll(async () => {
    await bed?.close();
  });

  it('keeps placements in saved order, pages them with the total, and counts the cards of the fullest placement', async () => {
    const key = freshKey();
    await replace(key, header, [placement(0, 33, ['a']), placement(0, 31, ['a', 'b', 'c']), placement(0, 32, [])]);
    expect(await repo.header(key)).toEqual({ ...header, numOfCards: 3 });
    const first = await repo.placementsPage(key, { offset: 0, limit: 2 });
    expect(first.total).toBe(3);
    expect(first.items.map((p) => p.placementId)).toEqual([33, 31]);
    expect(first.items[1].content).toEqual(['a', 'b', 'c']);
    expect(await repo.placementsPage(key, { offset: 2, limit: 2 })).toMatchObject({ total: 3, items: [{ placementId: 32 }] });
    expect(await repo.placementsPage(key, { offset: 9, limit: 2 })).toEqual({ total: 3, items: [] });
  });

  it('replaces the whole map: nothing of the old one is left', async () => {
    const key = freshKey();
    await replace(key, header, [placement(0, 31, ['a']), placement(0, 32, ['b'])]);
    await replace(key, { contentType: 'Creatives', dataServiceId: null, lookupColumn: null }, [placement(0, 40, ['hero'])]);
    expect(await repo.header(key)).toEqual({ contentType: 'Creatives', dataServiceId: null, lookupColumn: null, numOfCards: 1 });
    expect((await repo.placementsPage(key, { offset: 0, limit: 10 })).items.map((p) => p.placementId)).toEqual([40]);
  });

  it('a failed save leaves the previous map whole', async () => {
    const key = freshKey();
    await replace(key, header, [placement(0, 31, ['a'])]);
    // The same placement twice in one ad group breaks the primary key half-way through the insert.
    await expect(replace(key, { ...header, contentType: 'Brand' }, [placement(0, 50, ['x']), placement(0, 50, ['y'])])).rejects.toThrow();
    expect(await repo.header(key)).toEqual({ ...header, numOfCards: 1 });
    expect((await repo.placementsPage(key, { offset: 0, limit: 10 })).items.map((p) => p.placementId)).toEqual([31]);
  });

  it('pages ad groups in saved order, each with all its placements', async () => {
    const key = freshKey();
    await replace(key, header, [placement(8, 31, ['a']), placement(7, 31, ['b']), placement(8, 32, ['c']), placement(9, 33, [])]);
    const first = await repo.adGroupsPage(key, { offset: 0, limit: 2 });
    expect(first.total).toBe(3);
    expect(first.items.map((g) => [g.adGroupId, g.placements.map((p) => p.placementId)])).toEqual([
      [8, [31, 32]],
      [7, [31]],
    ]);
    expect((await repo.adGroupsPage(key, { offset: 2, limit: 2 })).items.map((g) => g.adGroupId)).toEqual([9]);
    expect(await repo.adGroupsPage(key, { offset: 5, limit: 2 })).toEqual({ total: 3, items: [] });
  });

  it('has no map for a plan never saved, and keeps maps of other accounts apart', async () => {
    const key = freshKey();
    await replace(key, header, [placement(0, 31, ['a'])]);
    expect(await repo.header({ ...key, accountId: 901 })).toBeUndefined();
    expect(await repo.placementsPage({ ...key, accountId: 901 }, { offset: 0, limit: 10 })).toEqual({ total: 0, items: [] });
  });
});
