import type { PlanFacts } from '../peers/channels-plans.peer';
import { FixedChannelsPlans, openTaggingTrackersTestBed, rejectionOf, type TaggingTrackersTestBed } from '../tagging-trackers.test-support';
import { TrackerService } from './tracker.service';

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
    {
      placementId: 41,
      placementName: '300x250 - Southmart',
      siteIdx: 6,
      siteName: 'Southmart',
      dimension: '300x250',
      adServerId: 'xandr',
      adServerKind: 'display',
    },
  ],
};

describe(TrackerService.name, () => {
  let bed: TaggingTrackersTestBed;
  let sut: TrackerService;
  const peer = new FixedChannelsPlans(new Map([['1/10', { retailCampaignId: 10, campaignName: 'Spring', status: 'ACTIVE' }]]), new Map([['1/3', plan]]));
  const row = (siteName: string, placementName: string, trackers: Record<string, string>) => ({ siteName, placementName, trackers });

  beforeAll(async () => {
    bed = await openTaggingTrackersTestBed('trk');
    sut = bed.trackers;
  });
  afterAll(() => bed.close());

  it('validates without storing, then appends by site and placement name, counting sites, placements and trackers', async () => {
    const rows = [
      row('Northmart', '300x250 - Northmart', {
        primaryClickTracker: 'https://t.example/c?cb=%%CACHEBUSTER%%',
        bannerImpressionInTagPixelTracker: 'https://t.example/i.gif',
      }),
      row('Southmart', '300x250 - Southmart', { bannerImpressionInTagScriptTracker: '<script src="https://t.example/s.js?u=${US_PRIVACY}"></script>' }),
    ];
    const dryRun = await sut.update(peer, 1, 3, 10, { type: 'inline', isValidate: true, rows });
    expect(dryRun).toEqual({
      siteUpdatedCount: 0,
      siteAppendedCount: 2,
      placementUpdatedCount: 0,
      placementAppendedCount: 2,
      trackerAppendedCount: 3,
      updatedCampaignId: false,
      updatedMediaPlanName: false,
      errorResponse: {},
    });
    expect((await sut.campaignTrackers(peer, 1, 10)).trackersSelected).toEqual([]);

    expect(await sut.update(peer, 1, 3, 10, { type: 'inline', isValidate: false, rows })).toMatchObject({
      siteAppendedCount: 2,
      trackerAppendedCount: 3,
      updatedCampaignId: true,
    });
    const again = await sut.update(peer, 1, 3, 10, {
      type: 'inline',
      isValidate: false,
      rows: [...rows, row('Northmart', '728x90 - Northmart', { primaryClickTracker: 'https://t.example/c2' })],
    });
    expect(again).toMatchObject({ siteUpdatedCount: 1, siteAppendedCount: 0, placementUpdatedCount: 0, placementAppendedCount: 1, trackerAppendedCount: 1 });
    expect((await sut.campaignTrackers(peer, 1, 10)).trackersSelected).toEqual([
      'primaryClickTracker',
      'bannerImpressionInTagPixelTracker',
      'bannerImpressionInTagScriptTracker',
    ]);
  });

  it('refuses bad values and unknown names into errorResponse by field, storing the rest', async () => {
    const result = await sut.update(peer, 1, 3, 10, {
      type: 'inline',
      isValidate: false,
      rows: [
        row('Nowhere', 'x', { primaryClickTracker: 'https://ok.example' }),
        row('Northmart', 'missing', {}),
        row('Northmart', '300x250 - Northmart', {
          secondaryClickTracker1: 'ftp://t.example/c',
          secondaryClickTracker2: 'https://t.example/c?x=${CLICK_URL_ENC}',
          creativeLoadEventTracker: 'https://t.example/l?c=${GDPR_CONSENT}',
          mobileBannerClickTracker: 'https://t.example/m',
          bannerImpressionOutTagScriptTracker: '<img src="https://t.example/p.gif">',
        }),
      ],
    });
    expect(result.errorResponse).toEqual({
      siteName: ['Nowhere'],
      placementName: ['missing'],
      secondaryClickTracker1: ['ftp://t.example/c'],
      secondaryClickTracker2: ['https://t.example/c?x=${CLICK_URL_ENC}'],
      creativeLoadEventTracker: ['https://t.example/l?c=${GDPR_CONSENT}'],
      bannerImpressionOutTagScriptTracker: ['<img src="https://t.example/p.gif">'],
    });
    expect(result.trackerAppendedCount).toBe(1);
  });

  it('reads trackers per site and placement, every record field present, narrowed by site or placement', async () => {
    const all = await sut.planTrackers(peer, 1, 3, 10, {});
    expect(all.sites.map((s) => [s.siteIdx, s.siteName, s.placements.map((p) => p.placementId)])).toEqual([
      [5, 'Northmart', [31, 32]],
      [6, 'Southmart', [41]],
    ]);
    const first = all.sites[0].placements[0].trackers;
    expect(Object.keys(first)).toHaveLength(21);
    expect(first.primaryClickTracker).toEqual(['https://t.example/c?cb=%%CACHEBUSTER%%']);
    expect(first.bannerImpressionTrackers).toEqual(['https://t.example/i.gif']);
    expect(first.mobileBannerClickTracker).toEqual(['https://t.example/m']);
    expect((await sut.planTrackers(peer, 1, 3, 10, { siteId: 6 })).sites.map((s) => s.siteIdx)).toEqual([6]);
    expect((await sut.planTrackers(peer, 1, 3, 10, { placementId: 32 })).sites).toEqual([
      expect.objectContaining({ siteIdx: 5, placements: [expect.objectContaining({ placementId: 32 })] }),
    ]);
  });

  it('refuses a plan of another campaign with 404, an unknown field and an unknown type with 400', async () => {
    expect(await rejectionOf(sut.planTrackers(peer, 1, 3, 11, {}))).toMatchObject({ status: 404, code: 'MEDIA_PLAN_NOT_FOUND' });
    expect(await rejectionOf(sut.update(peer, 1, 3, 10, { type: 'bulk', isValidate: false, rows: [row('a', 'b', { clickTracker: 'x' })] }))).toMatchObject({
      status: 400,
      errors: [expect.objectContaining({ pointer: '/type' }), expect.objectContaining({ pointer: '/mediaPlanDetails/0/clickTracker' })],
    });
  });
});
