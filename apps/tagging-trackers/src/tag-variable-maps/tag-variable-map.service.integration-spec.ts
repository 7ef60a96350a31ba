import { FixedChannelsPlans, openTaggingTrackersTestBed, rejectionOf, type TaggingTrackersTestBed } from '../tagging-trackers.test-support';
import { TagVariableMapService } from './tag-variable-map.service';

describe(TagVariableMapService.name, () => {
  let bed: TaggingTrackersTestBed;
  let sut: TagVariableMapService;
  const peer = new FixedChannelsPlans(
    new Map([
      ['1/10', { retailCampaignId: 10, campaignName: 'Spring', status: 'DRAFT' }],
      ['1/11', { retailCampaignId: 11, campaignName: 'Summer', status: 'ACTIVE' }],
    ]),
  );
  const entry = (overrides: Partial<Parameters<TagVariableMapService['create']>[3]> = {}) => ({
    adServerId: 'gam',
    dataSignal: 'store',
    macroName: '%%PATTERN:store%%',
    adServerParamsJson: '{"keyValue":true}',
    ...overrides,
  });

  beforeAll(async () => {
    bed = await openTaggingTrackersTestBed('tvm');
    sut = bed.tagVariableMaps;
  });
  afterAll(() => bed.close());

  it('creates entries and lists them per campaign in idx order, params handed back as stored', async () => {
    const first = await sut.create(peer, 1, 10, entry());
    const second = await sut.create(peer, 1, 10, entry({ adServerId: 'xandr', macroName: '${STORE_ID}', adServerParamsJson: '' }));
    expect(second).toBeGreaterThan(first);
    expect(await sut.list(peer, 1, 10)).toEqual([
      { idx: first, adServerId: 'gam', dataSignal: 'store', macroName: '%%PATTERN:store%%', adServerParamsJson: '{"keyValue":true}' },
      { idx: second, adServerId: 'xandr', dataSignal: 'store', macroName: '${STORE_ID}', adServerParamsJson: '{}' },
    ]);
    expect(await sut.list(peer, 1, 11)).toEqual([]);
  });

  it('refuses a second macro for the same campaign, ad server and data signal with 409, on create and on update', async () => {
    await sut.create(peer, 1, 11, entry({ dataSignal: 'weather' }));
    const other = await sut.create(peer, 1, 11, entry({ dataSignal: 'city' }));
    expect(await rejectionOf(sut.create(peer, 1, 11, entry({ dataSignal: 'Weather' })))).toMatchObject({ status: 409, code: 'TAG_VARIABLE_MAP_DUPLICATE' });
    expect(await rejectionOf(sut.update(peer, 1, 11, other, entry({ dataSignal: 'weather' })))).toMatchObject({
      status: 409,
      code: 'TAG_VARIABLE_MAP_DUPLICATE',
    });
    // The same signal on another ad server is another entry.
    await expect(sut.create(peer, 1, 11, entry({ dataSignal: 'weather', adServerId: 'cm360', macroName: '%weather!' }))).resolves.toBeGreaterThan(0);
  });

  it('updates an entry by idx and answers 404 for an idx of another campaign', async () => {
    const idx = await sut.create(peer, 1, 10, entry({ dataSignal: 'zip' }));
    expect(await sut.update(peer, 1, 10, idx, entry({ dataSignal: 'zip', adServerId: 'ttd', macroName: '%%TTD_ZIP%%' }))).toBe(idx);
    expect((await sut.list(peer, 1, 10)).find((e) => e.idx === idx)).toMatchObject({ adServerId: 'ttd', macroName: '%%TTD_ZIP%%' });
    expect(await rejectionOf(sut.update(peer, 1, 11, idx, entry({ dataSignal: 'zip' })))).toMatchObject({ status: 404, code: 'TAG_VARIABLE_MAP_NOT_FOUND' });
  });

  it('refuses an ad server outside the catalog, a macro in another syntax, a bad signal name and non-object params, naming each', async () => {
    const rejection = await rejectionOf(sut.create(peer, 1, 10, entry({ adServerId: 'nope' })));
    expect(rejection).toMatchObject({ status: 400, errors: [expect.objectContaining({ pointer: '/adServerId', code: 'UNKNOWN_AD_SERVER' })] });
    const bad = await rejectionOf(sut.create(peer, 1, 10, entry({ macroName: '${STORE}', dataSignal: '1store', adServerParamsJson: '[1]' })));
    expect(bad.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ pointer: '/macroName', code: 'INVALID_FORMAT' }),
        expect.objectContaining({ pointer: '/dataSignal', code: 'INVALID_FORMAT' }),
        expect.objectContaining({ pointer: '/adServerParams', code: 'INVALID_TYPE' }),
      ]),
    );
    expect((await sut.list(peer, 1, 10)).some((e) => e.dataSignal === '1store')).toBe(false);
  });

  it("answers another account's campaign with channels-plans' 404", async () => {
    expect(await rejectionOf(sut.list(peer, 2, 10))).toMatchObject({ status: 404, code: 'RETAIL_CAMPAIGN_NOT_FOUND' });
    expect(await rejectionOf(sut.create(peer, 2, 10, entry()))).toMatchObject({ status: 404 });
  });
});
