import { MARK_TAGS_PRESENT_MAX, MOBILE_BANNER_TYPES, NATIVE_RESPONSE_FORMATS } from '@contracts/domain';
import { openChannelsPlansTestBed, rejectionOf, type ChannelsPlansTestBed } from '../channels-plans.test-support';

jest.setTimeout(60_000);

describe('PlacementService (real MariaDB)', () => {
  let bed: ChannelsPlansTestBed;
  let nextAccount = 100;
  let nextOrg = 1;

  /** An account with a campaign and an auto plan of `dimensions` on a channel of `adServerId`. */
  async function plan(dimensions = ['300x250', '728x90'], adServerId = 'gam') {
    const org = { orgId: `org-${nextOrg++}`, dimensionWhitelist: ['300x250', '728x90', '160x600', '300x600'] };
    const accountId = nextAccount++;
    const retailCampaignId = await bed.retailCampaigns.create(accountId, { campaignName: 'Tags', isAdGroupCampaign: false, isSbt: false });
    const mediaChannelIdx = await bed.mediaChannels.create(org.orgId, {
      name: `Channel ${adServerId}`,
      adServerId,
      type: 'Off-site',
      tagGeneration: true,
      creativeGeneration: false,
      additionalConfigurationJson: null,
    });
    const { mediaPlanId } = await bed.mediaPlans.createAuto(org, accountId, { retailCampaignId, mediaChannelIdx, dimensions });
    const placementIds = (await bed.placements.listForPlan(accountId, mediaPlanId)).placements.map((p) => p.placementId);
    return { org, accountId, retailCampaignId, mediaChannelIdx, mediaPlanId, placementIds };
  }
  const tagFlags = async (mediaPlanId: number) =>
    (await bed.db.knex('placements').where({ media_plan_id: mediaPlanId }).orderBy('placement_id').select('is_tag_present')).map((r) =>
      Boolean(r.is_tag_present),
    );

  beforeAll(async () => {
    bed = await openChannelsPlansTestBed('pl');
  });

  afterAll(async () => {
    await bed?.close();
  });

  describe('listForPlan (peer ListPlanPlacements)', () => {
    it('lists every placement of the plan in id order with its site, ad server and kind, params and tag flag', async () => {
      const p = await plan(['728x90', '300x250', '160x600'], 'ttd');
      const listed = await bed.placements.listForPlan(p.accountId, p.mediaPlanId);
      expect(listed).toEqual({
        mediaPlanId: p.mediaPlanId,
        mediaPlanName: 'Tags - Channel ttd',
        retailCampaignId: p.retailCampaignId,
        placements: ['160x600', '300x250', '728x90'].map((dimension) => ({
          placementId: expect.any(Number),
          placementName: `${dimension} - Channel ttd`,
          siteIdx: expect.any(Number),
          siteName: 'Channel ttd',
          dimension,
          adUnitType: 'in-stream-video',
          isTagPresent: false,
          adServerId: 'ttd',
          adServerName: 'The Trade Desk',
          adServerKind: 'video',
          paramsJson: '{}',
        })),
      });
      const ids = listed.placements.map((x) => x.placementId);
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    });

    it("answers another account's plan and a missing one with 404, naming the plan", async () => {
      const p = await plan();
      const other = await plan();
      expect(await rejectionOf(bed.placements.listForPlan(other.accountId, p.mediaPlanId))).toMatchObject({ status: 404, code: 'MEDIA_PLAN_NOT_FOUND' });
      expect(await rejectionOf(bed.placements.listForPlan(p.accountId, p.mediaPlanId + 1000))).toMatchObject({
        status: 404,
        detail: `Media plan ${p.mediaPlanId + 1000} was not found.`,
      });
    });
  });

  describe('markTagsPresent (peer MarkTagsPresent)', () => {
    it('marks the named placements only, and is idempotent', async () => {
      const p = await plan(['300x250', '728x90', '160x600']);
      const [first, , third] = p.placementIds;
      expect(await bed.placements.markTagsPresent(p.accountId, p.mediaPlanId, [third, first, third])).toBe(2);
      expect(await tagFlags(p.mediaPlanId)).toEqual([true, false, true]);
      expect(await bed.placements.markTagsPresent(p.accountId, p.mediaPlanId, [first, third])).toBe(2);
      expect(await tagFlags(p.mediaPlanId)).toEqual([true, false, true]);
      expect((await bed.placements.listForPlan(p.accountId, p.mediaPlanId)).placements.map((x) => x.isTagPresent)).toEqual([true, false, true]);
      expect((await bed.mediaPlans.get(p.accountId, p.mediaPlanId, ['adServers'])).adServers?.[0].placements.map((x) => x.isTagPresent)).toEqual([
        true,
        false,
        true,
      ]);
    });

    it('refuses ids that are not placements of the plan, naming them, and marks nothing', async () => {
      const p = await plan();
      const other = await plan();
      const refused = await rejectionOf(bed.placements.markTagsPresent(p.accountId, p.mediaPlanId, [p.placementIds[0], other.placementIds[0], 999_999_999]));
      expect(refused).toMatchObject({
        status: 404,
        code: 'PLACEMENT_NOT_FOUND',
        detail: `Placements ${other.placementIds[0]}, 999999999 are not in media plan ${p.mediaPlanId}; nothing was marked.`,
      });
      expect(await tagFlags(p.mediaPlanId)).toEqual([false, false]);
      expect(await tagFlags(other.mediaPlanId)).toEqual([false, false]);
    });

    it("answers another account's plan with 404 and leaves its placements unmarked", async () => {
      const p = await plan();
      const stranger = await plan();
      expect(await rejectionOf(bed.placements.markTagsPresent(stranger.accountId, p.mediaPlanId, p.placementIds))).toMatchObject({
        status: 404,
        code: 'MEDIA_PLAN_NOT_FOUND',
      });
      expect(await tagFlags(p.mediaPlanId)).toEqual([false, false]);
    });

    it('accepts an empty list as nothing to mark, once the plan is found', async () => {
      const p = await plan();
      expect(await bed.placements.markTagsPresent(p.accountId, p.mediaPlanId, [])).toBe(0);
      expect(await rejectionOf(bed.placements.markTagsPresent(p.accountId, p.mediaPlanId + 1000, []))).toMatchObject({ status: 404 });
    });

    it('refuses ids below 1 and more ids than the cap, before looking anything up', async () => {
      const p = await plan();
      const bad = await rejectionOf(bed.placements.markTagsPresent(p.accountId, p.mediaPlanId, [p.placementIds[0], 0, -3]));
      expect(bad).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
      expect((bad.errors as { pointer: string }[]).map((e) => e.pointer)).toEqual(['/placementIds/1', '/placementIds/2']);
      const tooMany = Array.from({ length: MARK_TAGS_PRESENT_MAX + 1 }, (_, i) => i + 1);
      expect((await rejectionOf(bed.placements.markTagsPresent(p.accountId, p.mediaPlanId, tooMany))).errors).toEqual([
        expect.objectContaining({ pointer: '/placementIds', code: 'TOO_MANY_ITEMS' }),
      ]);
      expect(await tagFlags(p.mediaPlanId)).toEqual([false, false]);
    });
  });

  const sites = async (mediaPlanId: number) =>
    (await bed.db.knex('media_plan_sites').where({ media_plan_id: mediaPlanId }).orderBy('site_idx').select('ad_server_id', 'site_name')).map(
      (r) => `${r.ad_server_id}:${r.site_name}`,
    );
  const placementCount = async (mediaPlanId: number) => Number((await bed.db.knex('placements').where({ media_plan_id: mediaPlanId }).count({ n: '*' }))[0].n);

  describe('create (createPlacement)', () => {
    it("puts the placement on the plan's site of that name on that ad server, reusing or creating the site", async () => {
      const p = await plan(['300x250']);
      const reused = await bed.placements.create(p.accountId, p.mediaPlanId, {
        placementName: ' Sidebar ',
        siteName: 'Channel gam',
        dimension: '160x600',
        adServerId: 'gam',
      });
      expect(reused).toEqual({
        placementId: expect.any(Number),
        placementName: 'Sidebar',
        siteIdx: expect.any(Number),
        siteName: 'Channel gam',
        dimension: '160x600',
        adUnitType: 'display',
        isTagPresent: false,
        adServerId: 'gam',
        adServerName: 'Google Ad Manager',
        adServerKind: 'display',
        paramsJson: '{}',
      });
      const [auto] = (await bed.placements.listForPlan(p.accountId, p.mediaPlanId)).placements;
      expect(reused.siteIdx).toBe(auto.siteIdx);
      const video = await bed.placements.create(p.accountId, p.mediaPlanId, {
        placementName: 'Pre-roll',
        siteName: ' Video site ',
        dimension: '640x360',
        adServerId: 'ttd',
      });
      expect(video).toMatchObject({ siteName: 'Video site', adUnitType: 'in-stream-video', adServerKind: 'video' });
      expect(video.siteIdx).not.toBe(auto.siteIdx);
      expect(await sites(p.mediaPlanId)).toEqual(['gam:Channel gam', 'ttd:Video site']);
    });

    it('refuses a name taken on the site with 409, and takes it on another site; sizes may repeat on a site', async () => {
      const p = await plan(['300x250']);
      const input = { placementName: 'Top', siteName: 'Home', dimension: '300x250', adServerId: 'gam' };
      await bed.placements.create(p.accountId, p.mediaPlanId, input);
      expect(await rejectionOf(bed.placements.create(p.accountId, p.mediaPlanId, { ...input, dimension: '728x90' }))).toMatchObject({
        status: 409,
        code: 'PLACEMENT_NAME_TAKEN',
        detail: 'Site "Home" already has a placement named "Top".',
      });
      await bed.placements.create(p.accountId, p.mediaPlanId, { ...input, siteName: 'Checkout' });
      await bed.placements.create(p.accountId, p.mediaPlanId, { ...input, placementName: 'Bottom' });
      expect(await placementCount(p.mediaPlanId)).toBe(4);
    });

    it('refuses every bad field, naming it, and stores nothing', async () => {
      const p = await plan(['300x250']);
      const refused = await rejectionOf(
        bed.placements.create(p.accountId, p.mediaPlanId, { placementName: '  ', siteName: 'x'.repeat(201), dimension: '300x250px', adServerId: 'nope' }),
      );
      expect(refused).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
      expect(refused.errors).toEqual([
        expect.objectContaining({ pointer: '/placementName', code: 'REQUIRED' }),
        expect.objectContaining({ pointer: '/siteName', code: 'TOO_LONG' }),
        expect.objectContaining({ pointer: '/dimension', code: 'INVALID_FORMAT' }),
        expect.objectContaining({ pointer: '/adServer', code: 'NOT_ALLOWED', detail: expect.stringContaining('gam') }),
      ]);
      for (const dimension of ['0x250', '300x', '300x250 ', '030x250', '123456x1']) {
        const bad = await rejectionOf(bed.placements.create(p.accountId, p.mediaPlanId, { placementName: 'a', siteName: 'b', dimension, adServerId: 'gam' }));
        expect(bad.errors).toEqual([expect.objectContaining({ pointer: '/dimension' })]);
      }
      expect(await placementCount(p.mediaPlanId)).toBe(1);
      expect(await sites(p.mediaPlanId)).toEqual(['gam:Channel gam']);
    });

    it("answers another account's plan and a missing one with 404", async () => {
      const p = await plan();
      const stranger = await plan();
      const input = { placementName: 'a', siteName: 'b', dimension: '300x250', adServerId: 'gam' };
      expect(await rejectionOf(bed.placements.create(stranger.accountId, p.mediaPlanId, input))).toMatchObject({ status: 404, code: 'MEDIA_PLAN_NOT_FOUND' });
      expect(await rejectionOf(bed.placements.create(p.accountId, p.mediaPlanId + 1000, input))).toMatchObject({ status: 404 });
      expect(await placementCount(p.mediaPlanId)).toBe(2);
    });
  });

  describe('update (updatePlacement)', () => {
    const identify = (placement: { placementId: number; siteIdx: number }) => ({ placementId: placement.placementId, siteIdx: placement.siteIdx });

    it('renames, resizes and merges params, leaving what is not named as it was', async () => {
      const p = await plan(['300x250']);
      const [first] = (await bed.placements.listForPlan(p.accountId, p.mediaPlanId)).placements;
      const updated = await bed.placements.update(p.accountId, p.mediaPlanId, {
        ...identify(first),
        placementName: ' Hero ',
        dimension: '970x250',
        params: { adChoices: true, mraid: false, gdprConsentMacro: '${GDPR_CONSENT_755}', tagType: 'script' },
      });
      expect(updated).toMatchObject({
        placementId: first.placementId,
        placementName: 'Hero',
        dimension: '970x250',
        siteIdx: first.siteIdx,
        siteName: 'Channel gam',
      });
      expect(JSON.parse(updated.paramsJson)).toEqual({ adChoices: true, mraid: false, gdprConsentMacro: '${GDPR_CONSENT_755}', tagType: 'script' });
      const again = await bed.placements.update(p.accountId, p.mediaPlanId, { ...identify(first), params: { mraid: true, ccpa: true, tagType: undefined } });
      expect(again.placementName).toBe('Hero');
      expect(JSON.parse(again.paramsJson)).toEqual({ adChoices: true, mraid: true, ccpa: true, gdprConsentMacro: '${GDPR_CONSENT_755}', tagType: 'script' });
      const unchanged = await bed.placements.update(p.accountId, p.mediaPlanId, identify(first));
      expect(unchanged).toEqual(again);
    });

    it('moves the placement to another site or ad server, with the ad-unit type of its kind, and removes the site it left empty', async () => {
      const p = await plan(['300x250', '728x90']);
      const [first, second] = (await bed.placements.listForPlan(p.accountId, p.mediaPlanId)).placements;
      const moved = await bed.placements.update(p.accountId, p.mediaPlanId, { ...identify(first), adServerId: 'vistar', siteName: 'Store screens' });
      expect(moved).toMatchObject({ adServerId: 'vistar', adServerKind: 'dooh', adUnitType: 'dooh-screen', siteName: 'Store screens' });
      expect(await sites(p.mediaPlanId)).toEqual(['gam:Channel gam', 'vistar:Store screens']);
      // The second one follows onto the same site; the old one is left empty and goes.
      const followed = await bed.placements.update(p.accountId, p.mediaPlanId, { ...identify(second), adServerId: 'vistar', siteName: 'Store screens' });
      expect(followed.siteIdx).toBe(moved.siteIdx);
      expect(await sites(p.mediaPlanId)).toEqual(['vistar:Store screens']);
      const renamedSite = await bed.placements.update(p.accountId, p.mediaPlanId, { ...identify(followed), siteName: 'Aisle screens' });
      expect(renamedSite).toMatchObject({ adServerId: 'vistar', siteName: 'Aisle screens', adUnitType: 'dooh-screen' });
      expect(await sites(p.mediaPlanId)).toEqual(['vistar:Store screens', 'vistar:Aisle screens']);
      const plan9 = await bed.mediaPlans.get(p.accountId, p.mediaPlanId, ['adServers']);
      expect(plan9.adServers?.map((a) => [a.adServerId, a.placements.length])).toEqual([['vistar', 2]]);
    });

    it('answers a placement on another site, of another plan or account, with 404 and changes nothing', async () => {
      const p = await plan(['300x250']);
      const other = await plan(['300x250']);
      const [mine] = (await bed.placements.listForPlan(p.accountId, p.mediaPlanId)).placements;
      const [theirs] = (await bed.placements.listForPlan(other.accountId, other.mediaPlanId)).placements;
      const rename = { placementName: 'Changed' };
      expect(
        await rejectionOf(bed.placements.update(p.accountId, p.mediaPlanId, { ...identify(mine), siteIdx: mine.siteIdx + 1000, ...rename })),
      ).toMatchObject({
        status: 404,
        code: 'PLACEMENT_NOT_FOUND',
      });
      expect(await rejectionOf(bed.placements.update(p.accountId, p.mediaPlanId, { ...identify(theirs), ...rename }))).toMatchObject({
        status: 404,
        code: 'PLACEMENT_NOT_FOUND',
      });
      expect(await rejectionOf(bed.placements.update(p.accountId, other.mediaPlanId, { ...identify(theirs), ...rename }))).toMatchObject({
        status: 404,
        code: 'MEDIA_PLAN_NOT_FOUND',
      });
      const names = (await bed.db.knex('placements').whereIn('placement_id', [mine.placementId, theirs.placementId]).select('placement_name')).map(
        (r) => r.placement_name,
      );
      expect(names).not.toContain('Changed');
    });

    it('refuses a name taken on the site it lands on with 409, leaving it where it was', async () => {
      const p = await plan(['300x250', '728x90']);
      const [first, second] = (await bed.placements.listForPlan(p.accountId, p.mediaPlanId)).placements;
      const taken = await rejectionOf(bed.placements.update(p.accountId, p.mediaPlanId, { ...identify(first), placementName: second.placementName }));
      expect(taken).toMatchObject({ status: 409, code: 'PLACEMENT_NAME_TAKEN' });
      await bed.placements.create(p.accountId, p.mediaPlanId, {
        placementName: first.placementName,
        siteName: 'Other',
        dimension: '300x250',
        adServerId: 'gam',
      });
      expect(await rejectionOf(bed.placements.update(p.accountId, p.mediaPlanId, { ...identify(first), siteName: 'Other' }))).toMatchObject({ status: 409 });
      expect((await bed.placements.listForPlan(p.accountId, p.mediaPlanId)).placements[0]).toEqual(first);
    });

    it('refuses every bad field, naming it', async () => {
      const p = await plan(['300x250']);
      const refused = await rejectionOf(
        bed.placements.update(p.accountId, p.mediaPlanId, {
          placementId: 0,
          siteIdx: -1,
          placementName: '',
          siteName: ' ',
          adServerId: 'GAM',
          dimension: '300*250',
          params: { tagType: 'x'.repeat(201), adChoices: 'yes' as unknown as boolean },
        }),
      );
      expect((refused.errors as { pointer: string; code: string }[]).map((e) => [e.pointer, e.code])).toEqual([
        ['/placementId', 'OUT_OF_RANGE'],
        ['/siteIdx', 'OUT_OF_RANGE'],
        ['/placementName', 'REQUIRED'],
        ['/siteName', 'REQUIRED'],
        ['/dimension', 'INVALID_FORMAT'],
        ['/adServer', 'NOT_ALLOWED'],
        ['/tagType', 'TOO_LONG'],
        ['/adChoices', 'INVALID_TYPE'],
      ]);
    });
  });

  describe('bulk-tag data (getBulkTagData)', () => {
    it("groups every placement by its site's ad server with params and tag flag, for the plan's own campaign only", async () => {
      const p = await plan(['300x250', '728x90']);
      const video = await bed.placements.create(p.accountId, p.mediaPlanId, {
        placementName: 'Pre-roll',
        siteName: 'Video',
        dimension: '640x360',
        adServerId: 'ttd',
      });
      const [auto] = (await bed.placements.listForPlan(p.accountId, p.mediaPlanId)).placements;
      await bed.placements.update(p.accountId, p.mediaPlanId, { placementId: auto.placementId, siteIdx: auto.siteIdx, params: { adChoices: true } });
      await bed.placements.markTagsPresent(p.accountId, p.mediaPlanId, [video.placementId]);
      const data = await bed.placements.bulkTagData(p.accountId, p.mediaPlanId, p.retailCampaignId);
      expect(data).toMatchObject({ mediaPlanId: p.mediaPlanId, mediaPlanName: 'Tags - Channel gam' });
      expect(
        data.adServers.map((a) => [a.adServerId, a.adServerName, a.adServerKind, a.placements.map((x) => [x.dimension, x.isTagPresent, x.paramsJson])]),
      ).toEqual([
        [
          'gam',
          'Google Ad Manager',
          'display',
          [
            ['300x250', false, '{"adChoices":true}'],
            ['728x90', false, '{}'],
          ],
        ],
        ['ttd', 'The Trade Desk', 'video', [['640x360', true, '{}']]],
      ]);
    });

    it('answers a plan of another campaign, a missing campaign and another account with 404', async () => {
      const p = await plan();
      const sibling = await bed.retailCampaigns.create(p.accountId, { campaignName: 'Sibling', isAdGroupCampaign: false, isSbt: false });
      const stranger = await plan();
      expect(await rejectionOf(bed.placements.bulkTagData(p.accountId, p.mediaPlanId, sibling))).toMatchObject({
        status: 404,
        code: 'MEDIA_PLAN_NOT_FOUND',
        detail: `Media plan ${p.mediaPlanId} was not found in retail campaign ${sibling}.`,
      });
      expect(await rejectionOf(bed.placements.bulkTagData(p.accountId, p.mediaPlanId, sibling + 1000))).toMatchObject({
        status: 404,
        code: 'RETAIL_CAMPAIGN_NOT_FOUND',
      });
      expect(await rejectionOf(bed.placements.bulkTagData(stranger.accountId, p.mediaPlanId, p.retailCampaignId))).toMatchObject({
        status: 404,
        code: 'RETAIL_CAMPAIGN_NOT_FOUND',
      });
      expect(await rejectionOf(bed.placements.bulkTagData(stranger.accountId, p.mediaPlanId, stranger.retailCampaignId))).toMatchObject({
        status: 404,
        code: 'MEDIA_PLAN_NOT_FOUND',
      });
    });
  });

  describe('ad-unit details (getAdUnitDetails)', () => {
    const detailsOf = async (dimension: string) => {
      const p = await plan(['300x250']);
      const placement =
        dimension === '300x250'
          ? (await bed.placements.listForPlan(p.accountId, p.mediaPlanId)).placements[0]
          : await bed.placements.create(p.accountId, p.mediaPlanId, { placementName: dimension, siteName: 'Any', dimension, adServerId: 'gam' });
      return { p, placement, details: await bed.placements.adUnitDetails(p.accountId, p.mediaPlanId, p.retailCampaignId, placement.placementId) };
    };

    it('offers in-banner, mobile and native units for 300x250, with the mobile options in-banner', async () => {
      const { placement, details } = await detailsOf('300x250');
      expect(details).toEqual({
        placementId: placement.placementId,
        inBanner: {
          adUnitTypes: [
            { id: 101, name: 'Standard Banner' },
            { id: 102, name: 'Rich Media Expandable' },
            { id: 103, name: 'Carousel' },
            { id: 104, name: 'In-Banner Video' },
          ],
          hasMobileUnit: true,
          mobileBannerType: [...MOBILE_BANNER_TYPES],
          mobileFlexCreativeUnitType: { 'Flex Banner': 1, 'Flex Interstitial': 2, 'Flex Scroller': 3 },
          dimension: '300x250',
        },
        mobile: {
          adUnitTypes: [
            { id: 301, name: 'Mobile Banner' },
            { id: 303, name: 'Mobile In-Web Video' },
          ],
          dimension: '300x250',
        },
        native: {
          adUnitTypes: [
            { id: 401, name: 'Native In-Feed' },
            { id: 402, name: 'Native Product Card' },
          ],
          dimension: '300x250',
          responseFormat: NATIVE_RESPONSE_FORMATS,
        },
      });
    });

    it('offers in-stream units for a player size, with dynamic product video, and only what a size has', async () => {
      const video = (await detailsOf('640x360')).details;
      expect(video.inStream).toEqual({
        adTagType: ['VAST 4.2', 'VAST 4.1', 'VAST 4.0', 'VAST 3.0'],
        dynamicPriVideo: true,
        playerType: [
          { name: 'Google IMA HTML5', version: '3' },
          { name: 'Video.js', version: '8' },
          { name: 'JW Player', version: '8' },
        ],
        videoTagType: ['url', 'xml'],
      });
      expect(video.native).toBeUndefined();
      expect((await detailsOf('640x480')).details.inStream?.dynamicPriVideo).toBe(false);
      const leaderboard = (await detailsOf('728x90')).details;
      expect(leaderboard.inBanner).toMatchObject({ hasMobileUnit: false, mobileBannerType: [], mobileFlexCreativeUnitType: {} });
      expect([leaderboard.mobile, leaderboard.inStream, leaderboard.native]).toEqual([undefined, undefined, undefined]);
      const odd = await detailsOf('123x45');
      expect(odd.details).toEqual({ placementId: odd.placement.placementId });
    });

    it('answers a placement outside the plan, a plan of another campaign and another account with 404, and a bad id with 400', async () => {
      const { p, placement } = await detailsOf('300x250');
      const other = await plan();
      expect(await rejectionOf(bed.placements.adUnitDetails(p.accountId, p.mediaPlanId, p.retailCampaignId, other.placementIds[0]))).toMatchObject({
        status: 404,
        code: 'PLACEMENT_NOT_FOUND',
      });
      expect(await rejectionOf(bed.placements.adUnitDetails(other.accountId, p.mediaPlanId, other.retailCampaignId, placement.placementId))).toMatchObject({
        status: 404,
        code: 'MEDIA_PLAN_NOT_FOUND',
      });
      expect(await rejectionOf(bed.placements.adUnitDetails(p.accountId, p.mediaPlanId, p.retailCampaignId, 0))).toMatchObject({
        status: 400,
        errors: [expect.objectContaining({ parameter: 'placementId' })],
      });
    });

    it('seeds the catalog idempotently and converges to the shipped one', async () => {
      await bed.adUnits.seedCatalog([{ adUnitTypeId: 999, group: 'native', name: 'Gone soon', dimensions: ['300x250'] }]);
      expect((await bed.db.knex('ad_unit_types').select('ad_unit_type_id')).map((r) => r.ad_unit_type_id)).toEqual([999]);
      await bed.adUnits.seedCatalog();
      await bed.adUnits.seedCatalog();
      expect(Number((await bed.db.knex('ad_unit_types').count({ n: '*' }))[0].n)).toBe(11);
      expect((await detailsOf('300x250')).details.native?.adUnitTypes.map((t) => t.id)).toEqual([401, 402]);
    });
  });
});
