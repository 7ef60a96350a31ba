import { openAssetSourcesTestBed, rejectionOf, type AssetSourcesTestBed } from '../asset-sources.test-support';
import { NO_SPECIAL_COLUMNS } from '../sources/asset-source.model';

jest.setTimeout(60_000);

describe('LabelService (real MariaDB)', () => {
  let bed: AssetSourcesTestBed;
  let nextAccount = 8000;
  const freshAccount = () => nextAccount++;
  const source = (account: number) =>
    bed.assetSources.createInline(account, {
      definition: { assetSourceName: 'Labelled', columnNames: ['sku'], columns: NO_SPECIAL_COLUMNS, contentType: null },
      rowsJson: '[]',
    });

  beforeAll(async () => {
    bed = await openAssetSourcesTestBed('albl');
  });

  afterAll(async () => {
    await bed?.close();
  });

  it('adds a label once, however often it is added, trimmed', async () => {
    const account = freshAccount();
    const id = await source(account);
    expect(await bed.labels.add(account, id, 'sale')).toBe(true);
    expect(await bed.labels.add(account, id, ' sale ')).toBe(false);
    expect(await bed.labels.list(account, id)).toEqual({ items: ['sale'], total: 1 });
  });

  it('keeps labels that differ only in case apart, and lists them in order a page at a time', async () => {
    const account = freshAccount();
    const id = await source(account);
    for (const label of ['b', 'Sale', 'a', 'sale', 'c']) await bed.labels.add(account, id, label);
    expect(await bed.labels.list(account, id, { offset: 1, limit: 3 })).toEqual({ items: ['a', 'b', 'c'], total: 5 });
    expect(await bed.labels.list(account, id, { offset: 5, limit: 3 })).toEqual({ items: [], total: 5 });
  });

  it('deletes a label; deleting one the source lacks is 404', async () => {
    const account = freshAccount();
    const id = await source(account);
    await bed.labels.add(account, id, 'spring');
    await bed.labels.delete(account, id, 'spring');
    expect((await bed.labels.list(account, id)).total).toBe(0);
    expect(await rejectionOf(bed.labels.delete(account, id, 'spring'))).toMatchObject({ status: 404, code: 'LABEL_NOT_FOUND' });
  });

  it("refuses a blank or overlong label, and another account's source as missing", async () => {
    const account = freshAccount();
    const id = await source(account);
    expect(await rejectionOf(bed.labels.add(account, id, '  '))).toMatchObject({
      status: 400,
      errors: [expect.objectContaining({ pointer: '/label', code: 'REQUIRED' })],
    });
    expect(await rejectionOf(bed.labels.add(account, id, 'x'.repeat(129)))).toMatchObject({
      status: 400,
      errors: [expect.objectContaining({ code: 'TOO_LONG' })],
    });
    expect(await rejectionOf(bed.labels.add(freshAccount(), id, 'mine'))).toMatchObject({ status: 404, code: 'ASSET_SOURCE_NOT_FOUND' });
    expect(await rejectionOf(bed.labels.list(freshAccount(), id))).toMatchObject({ status: 404 });
    expect((await bed.labels.list(account, id)).total).toBe(0);
  });
});
