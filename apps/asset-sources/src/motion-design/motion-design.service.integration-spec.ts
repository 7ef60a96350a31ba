import { problem } from '@platform/errors';
import { openAssetSourcesTestBed, rejectionOf, type AssetSourcesTestBed } from '../asset-sources.test-support';
import { NO_SPECIAL_COLUMNS } from '../sources/asset-source.model';
import type { MotionDesignFill, MotionDesignPeers } from './motion-design.service';

jest.setTimeout(60_000);

describe('MotionDesignService (real MariaDB)', () => {
  let bed: AssetSourcesTestBed;
  let nextAccount = 11_000;
  const freshAccount = () => nextAccount++;
  // The campaigns' owner is another service; here campaign 7 is the only one any account has.
  const asked: number[] = [];
  const campaign7 = async (_accountId: number, campaignId: number) => {
    asked.push(campaignId);
    if (campaignId !== 7) throw problem('DYNAMIC_CAMPAIGN_NOT_FOUND', `Campaign ${campaignId} was not found.`);
  };
  // The library's owner is another service too; here every account's library holds these files.
  const library = new Set(['motion/intro.mp4', 'motion/logo.png', 'outro.webm']);
  const libraryAsked: string[][] = [];
  const peers: MotionDesignPeers = {
    contentCreative: { requireDynamicCampaign: campaign7 },
    storageLibrary: {
      libraryFiles: async (_accountId, paths) => {
        libraryAsked.push(paths);
        return new Set(paths.filter((path) => library.has(path)));
      },
    },
  };
  const fill = (overrides: Partial<MotionDesignFill> = {}): MotionDesignFill => ({
    campaignId: '7',
    destinationAssetSourceName: 'Intro motion',
    assetSourceMap: [
      { assetId: 'motion/intro.mp4', assetSourceColumn: 'video' },
      { assetId: 'motion/logo.png', assetSourceColumn: 'logo' },
    ],
    ...overrides,
  });

  beforeAll(async () => {
    bed = await openAssetSourcesTestBed('amot');
  });

  afterAll(async () => {
    await bed?.close();
  });

  it('creates a motion-design source (destination 0) whose row maps each column to its asset path', async () => {
    const account = freshAccount();
    const id = await bed.motionDesign.fill(account, 0, fill(), peers);
    const data = await bed.assetSources.readData(account, id);
    expect(data.source).toMatchObject({ assetSourceType: 'motion-design', assetSourceName: 'Intro motion', columnNames: ['video', 'logo'], rowCount: 1 });
    expect(JSON.parse(data.rowsJson)).toEqual([{ video: 'motion/intro.mp4', logo: 'motion/logo.png' }]);
  });

  it('fills an existing motion-design source in place, and only one of that kind and account', async () => {
    const account = freshAccount();
    const id = await bed.motionDesign.fill(account, 0, fill(), peers);
    expect(
      await bed.motionDesign.fill(
        account,
        id,
        fill({ destinationAssetSourceName: 'Outro', assetSourceMap: [{ assetId: 'outro.webm', assetSourceColumn: 'clip' }] }),
        peers,
      ),
    ).toBe(id);
    const data = await bed.assetSources.readData(account, id);
    expect(data.source).toMatchObject({ assetSourceName: 'Outro', columnNames: ['clip'] });
    expect(JSON.parse(data.rowsJson)).toEqual([{ clip: 'outro.webm' }]);
    expect(await rejectionOf(bed.motionDesign.fill(freshAccount(), id, fill(), peers))).toMatchObject({ status: 404, code: 'ASSET_SOURCE_NOT_FOUND' });
    const inline = await bed.assetSources.createInline(account, {
      definition: { assetSourceName: 'Inline', columnNames: ['a'], columns: NO_SPECIAL_COLUMNS, contentType: null },
      rowsJson: '[]',
    });
    expect(await rejectionOf(bed.motionDesign.fill(account, inline, fill(), peers))).toMatchObject({ status: 409, code: 'ASSET_SOURCE_KIND_MISMATCH' });
  });

  it("passes on the campaign owner's 404 and stores nothing", async () => {
    const account = freshAccount();
    const libraryBefore = libraryAsked.length;
    expect(await rejectionOf(bed.motionDesign.fill(account, 0, fill({ campaignId: '8' }), peers))).toMatchObject({
      status: 404,
      code: 'DYNAMIC_CAMPAIGN_NOT_FOUND',
    });
    expect(asked.at(-1)).toBe(8);
    expect(libraryAsked.length).toBe(libraryBefore);
    expect((await bed.assetSources.list(account)).total).toBe(0);
  });

  it("refuses each asset that is not a file of the account's library, naming it, and stores nothing", async () => {
    const account = freshAccount();
    const withMissing = fill({
      assetSourceMap: [
        { assetId: 'motion/intro.mp4', assetSourceColumn: 'video' },
        { assetId: 'motion/gone.png', assetSourceColumn: 'logo' },
        { assetId: 'motion/gone.png', assetSourceColumn: 'still' },
        { assetId: 'never.webm', assetSourceColumn: 'outro' },
      ],
    });
    const error = await rejectionOf(bed.motionDesign.fill(account, 0, withMissing, peers));
    expect(error).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(error.errors).toEqual([
      { pointer: '/assetSourceMap/1/assetId', code: 'ASSET_NOT_FOUND', detail: expect.stringContaining('motion/gone.png') },
      { pointer: '/assetSourceMap/2/assetId', code: 'ASSET_NOT_FOUND', detail: expect.stringContaining('motion/gone.png') },
      { pointer: '/assetSourceMap/3/assetId', code: 'ASSET_NOT_FOUND', detail: expect.stringContaining('never.webm') },
    ]);
    // Each path is asked about once.
    expect(libraryAsked.at(-1)).toEqual(['motion/intro.mp4', 'motion/gone.png', 'never.webm']);
    expect((await bed.assetSources.list(account)).total).toBe(0);

    const id = await bed.motionDesign.fill(account, 0, fill(), peers);
    expect(await rejectionOf(bed.motionDesign.fill(account, id, withMissing, peers))).toMatchObject({ status: 400 });
    const data = await bed.assetSources.readData(account, id);
    expect(data.source).toMatchObject({ assetSourceName: 'Intro motion', columnNames: ['video', 'logo'] });
    expect(JSON.parse(data.rowsJson)).toEqual([{ video: 'motion/intro.mp4', logo: 'motion/logo.png' }]);
  });

  it.each([
    ['a campaign id that is not a number', fill({ campaignId: 'abc' }), '/campaignId', 'INVALID_FORMAT'],
    ['a blank name', fill({ destinationAssetSourceName: ' ' }), '/destinationAssetSourceName', 'REQUIRED'],
    ['an empty map', fill({ assetSourceMap: [] }), '/assetSourceMap', 'REQUIRED'],
    ['a path with ..', fill({ assetSourceMap: [{ assetId: 'motion/../x.png', assetSourceColumn: 'a' }] }), '/assetSourceMap/0/assetId', 'PATH_TRAVERSAL'],
    ['an absolute path', fill({ assetSourceMap: [{ assetId: '/motion/x.png', assetSourceColumn: 'a' }] }), '/assetSourceMap/0/assetId', 'PATH_ABSOLUTE'],
    ['a path with //', fill({ assetSourceMap: [{ assetId: 'motion//x.png', assetSourceColumn: 'a' }] }), '/assetSourceMap/0/assetId', 'PATH_DOUBLE_SLASH'],
    [
      'a control character',
      fill({ assetSourceMap: [{ assetId: 'motion/\u0007x.png', assetSourceColumn: 'a' }] }),
      '/assetSourceMap/0/assetId',
      'PATH_CONTROL_CHARACTER',
    ],
    [
      'an extension outside the list',
      fill({ assetSourceMap: [{ assetId: 'motion/x.exe', assetSourceColumn: 'a' }] }),
      '/assetSourceMap/0/assetId',
      'EXTENSION_NOT_ALLOWED',
    ],
    [
      'a Latin-1 supplement character',
      fill({ assetSourceMap: [{ assetId: 'motion/caf\u00e9.png', assetSourceColumn: 'a' }] }),
      '/assetSourceMap/0/assetId',
      'PATH_DISALLOWED_CHARACTER',
    ],
    [
      'a path over 512 characters',
      fill({ assetSourceMap: [{ assetId: `${'a/'.repeat(256)}x.png`, assetSourceColumn: 'a' }] }),
      '/assetSourceMap/0/assetId',
      'PATH_TOO_LONG',
    ],
    [
      'a column mapped twice',
      fill({
        assetSourceMap: [
          { assetId: 'a.png', assetSourceColumn: 'img' },
          { assetId: 'b.png', assetSourceColumn: 'img' },
        ],
      }),
      '/assetSourceMap/1/assetSourceColumn',
      'DUPLICATE',
    ],
  ])('refuses %s, naming it, before asking for the campaign or the library', async (_name, input, pointer, code) => {
    const [before, libraryBefore] = [asked.length, libraryAsked.length];
    const error = await rejectionOf(bed.motionDesign.fill(freshAccount(), 0, input, peers));
    expect(error).toMatchObject({ status: 400, errors: [expect.objectContaining({ pointer, code })] });
    expect(asked.length).toBe(before);
    expect(libraryAsked.length).toBe(libraryBefore);
  });
});
