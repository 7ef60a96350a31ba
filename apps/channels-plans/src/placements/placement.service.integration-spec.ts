import { MARK_TAGS_PRESENT_MAX } from '@contracts/domain';
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
        expect.objectContaining({ pointer: '/placementIds', code: 'TOO_MANY' }),
      ]);
      expect(await tagFlags(p.mediaPlanId)).toEqual([false, false]);
    });
  });
});
