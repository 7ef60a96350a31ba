import type { PlanFacts } from '../peers/channels-plans.peer';
import { FixedChannelsPlans, openTaggingTrackersTestBed, rejectionOf, type TaggingTrackersTestBed } from '../tagging-trackers.test-support';
import type { SingleTagOptions } from './tag.model';
import { TagService } from './tag.service';

const plan: PlanFacts = {
  mediaPlanId: 3,
  mediaPlanName: 'Spring - Northmart',
  retailCampaignId: 10,
  placements: [
    {
      placementId: 31,
      placementName: '300x250 - Northmart',
      siteIdx: 5,
      siteName: 'Northmart',
      dimension: '300x250',
      adServerId: 'gam',
      adServerKind: 'display',
    },
    {
      placementId: 32,
      placementName: '728x90 - Northmart',
      siteIdx: 5,
      siteName: 'Northmart',
      dimension: '728x90',
      adServerId: 'gam',
      adServerKind: 'display',
    },
  ],
};

describe(TagService.name, () => {
  let bed: TaggingTrackersTestBed;
  let sut: TagService;
  const campaigns = new Map([
    ['1/10', { retailCampaignId: 10, campaignName: 'Spring', status: 'DRAFT' }],
    ['1/11', { retailCampaignId: 11, campaignName: 'Summer', status: 'ACTIVE' }],
  ]);
  const peer = new FixedChannelsPlans(campaigns, new Map([['1/3', plan]]));
  const options = (overrides: Partial<SingleTagOptions> = {}): SingleTagOptions => ({
    kind: 'rich-media',
    campaignId: 10,
    adServerId: 'gam',
    includeAdChoices: false,
    additionalParamsJson: '',
    privacy: [],
    secureTags: false,
    dataSignalMap: {},
    enableNoScriptTag: false,
    enableForMobileApp: false,
    isDynamicPriVideo: false,
    useCustomLayout: false,
    ...overrides,
  });

  beforeAll(async () => {
    bed = await openTaggingTrackersTestBed('tag');
    sut = bed.tags;
  });
  afterAll(() => bed.close());

  it("stores each tag with its id in its URLs, takes the campaign's macros for the ad server, and marks the placement tagged", async () => {
    await bed.tagVariableMaps.create(peer, 1, 10, { adServerId: 'gam', dataSignal: 'store', macroName: '%%PATTERN:store%%', adServerParamsJson: '' });
    await bed.tagVariableMaps.create(peer, 1, 10, { adServerId: 'xandr', dataSignal: 'city', macroName: '${CITY}', adServerParamsJson: '' });
    const tag = await sut.generate(peer, 1, 3, 31, options());
    expect(tag.message).toBe('Tag generated.');
    const src = new URL(/src="([^"]+)"/.exec(tag.tagValue)?.[1].replace(/&amp;/g, '&') as string);
    expect(src.searchParams.get('tm')).toBe(String(tag.tagMetadataId));
    expect(src.search).toContain('ds_store=%%PATTERN:store%%');
    expect(src.searchParams.has('ds_city')).toBe(false);
    expect(peer.marked).toEqual([{ accountId: 1, mediaPlanId: 3, placementIds: [31] }]);
  });

  it('refuses a campaign that is not the plan’s, an ad server that is not the placement’s and an unknown placement, storing nothing', async () => {
    const before = await bed.db.knex('tag_metadata').count({ n: '*' }).first();
    expect(await rejectionOf(sut.generate(peer, 1, 3, 31, options({ campaignId: 11 })))).toMatchObject({
      status: 400,
      errors: [expect.objectContaining({ pointer: '/campaignId' })],
    });
    expect(await rejectionOf(sut.generate(peer, 1, 3, 31, options({ adServerId: 'xandr' })))).toMatchObject({
      status: 400,
      errors: [expect.objectContaining({ code: 'AD_SERVER_MISMATCH' })],
    });
    expect(await rejectionOf(sut.generate(peer, 1, 3, 99, options()))).toMatchObject({ status: 404, code: 'PLACEMENT_NOT_FOUND' });
    expect(await rejectionOf(sut.generate(peer, 2, 3, 31, options()))).toMatchObject({ status: 404, code: 'MEDIA_PLAN_NOT_FOUND' });
    expect(await bed.db.knex('tag_metadata').count({ n: '*' }).first()).toEqual(before);
  });

  it('lists only the newest tag per placement and kind, in keyset pages, and only for an ACTIVE campaign', async () => {
    expect(await rejectionOf(sut.campaignTags(peer, 1, 10, 0, 10))).toMatchObject({ status: 409, code: 'RETAIL_CAMPAIGN_NOT_ACTIVE' });
    campaigns.set('1/10', { retailCampaignId: 10, campaignName: 'Spring', status: 'ACTIVE' });
    const older = await sut.generate(peer, 1, 3, 32, options());
    const native = await sut.generate(peer, 1, 3, 32, options({ kind: 'native', adUnitId: 4 }));
    const newer = await sut.generate(peer, 1, 3, 32, options({ includeAdChoices: true }));
    const first = await sut.campaignTags(peer, 1, 10, 0, 2);
    expect(first.campaignName).toBe('Spring');
    expect(first.rows.map((r) => [r.placementId, r.kind])).toEqual([
      [31, 'rich-media'],
      [32, 'native'],
    ]);
    const second = await sut.campaignTags(peer, 1, 10, first.rows[1].tagMetadataId, 2);
    expect(second.rows.map((r) => r.tagMetadataId)).toEqual([newer.tagMetadataId]);
    expect(second.rows[0].tagValue).toBe(newer.tagValue);
    expect([older.tagMetadataId, native.tagMetadataId].every((id) => id < newer.tagMetadataId)).toBe(true);
  });
});
