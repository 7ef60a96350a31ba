import { AUTO_MEDIA_PLAN_DIMENSIONS_MAX } from '@contracts/domain';
import { openChannelsPlansTestBed, rejectionOf, type ChannelsPlansTestBed } from '../channels-plans.test-support';
import type { PlanningOrg } from './media-plan.model';

jest.setTimeout(60_000);

describe('MediaPlanService (real MariaDB)', () => {
  let bed: ChannelsPlansTestBed;
  let nextAccount = 100;
  let nextOrg = 1;
  const whitelist = ['300x250', '728x90', '160x600', '300x600'];

  /** A retailer org with an account, a campaign in it and a live channel on `adServerId`. */
  async function tenant(adServerId = 'gam') {
    const org: PlanningOrg = { orgId: `org-${nextOrg++}`, dimensionWhitelist: whitelist };
    const accountId = nextAccount++;
    const retailCampaignId = await bed.retailCampaigns.create(accountId, { campaignName: 'Summer', isAdGroupCampaign: false, isSbt: false });
    const mediaChannelIdx = await bed.mediaChannels.create(org.orgId, {
      name: `Channel ${adServerId}`,
      adServerId,
      type: 'Off-site',
      tagGeneration: true,
      creativeGeneration: false,
      additionalConfigurationJson: null,
    });
    return { org, accountId, retailCampaignId, mediaChannelIdx };
  }
  const count = async (table: string, where: Record<string, unknown>) => Number((await bed.db.knex(table).where(where).count({ n: '*' }))[0].n);

  beforeAll(async () => {
    bed = await openChannelsPlansTestBed('mp');
  });

  afterAll(async () => {
    await bed?.close();
  });

  describe('auto media plans', () => {
    it('creates a plan with one site on the channel ad server and one placement per distinct dimension', async () => {
      const t = await tenant();
      const result = await bed.mediaPlans.createAuto(t.org, t.accountId, {
        retailCampaignId: t.retailCampaignId,
        mediaChannelIdx: t.mediaChannelIdx,
        dimensions: ['728x90', '300x250', '728x90'],
      });
      expect(result).toEqual({ mediaPlanId: expect.any(Number), created: true });
      const plan = await bed.mediaPlans.get(t.accountId, result.mediaPlanId, []);
      expect(plan.mediaPlanName).toBe('Summer - Channel gam');
      expect(plan.adServers).toEqual([
        {
          adServerId: 'gam',
          adServerName: 'Google Ad Manager',
          adServerKind: 'display',
          placements: [
            expect.objectContaining({ dimension: '300x250', placementName: '300x250 - Channel gam', siteName: 'Channel gam', adUnitType: 'display' }),
            expect.objectContaining({ dimension: '728x90', placementName: '728x90 - Channel gam', adUnitType: 'display' }),
          ],
        },
      ]);
      const [first, second] = plan.adServers?.[0].placements ?? [];
      expect(first.siteIdx).toBe(second.siteIdx);
      expect(await count('media_plan_sites', { media_plan_id: result.mediaPlanId })).toBe(1);
    });

    it('picks the ad-unit type from the kind of the channel ad server', async () => {
      const t = await tenant('ttd');
      const { mediaPlanId } = await bed.mediaPlans.createAuto(t.org, t.accountId, { ...t, dimensions: ['300x250'] });
      expect((await bed.mediaPlans.get(t.accountId, mediaPlanId, ['adServers'])).adServers?.[0].placements[0]).toMatchObject({
        adUnitType: 'in-stream-video',
        adServerName: 'The Trade Desk',
      });
    });

    it('returns the existing plan for the same campaign, channel and dimension set in any order, and a new plan for another set', async () => {
      const t = await tenant();
      const first = await bed.mediaPlans.createAuto(t.org, t.accountId, { ...t, dimensions: ['300x250', '728x90'] });
      const again = await bed.mediaPlans.createAuto(t.org, t.accountId, { ...t, dimensions: ['728x90', '300x250', '300x250'] });
      expect(again).toEqual({ mediaPlanId: first.mediaPlanId, created: false });
      const other = await bed.mediaPlans.createAuto(t.org, t.accountId, { ...t, dimensions: ['300x250'] });
      expect(other.created).toBe(true);
      expect(other.mediaPlanId).not.toBe(first.mediaPlanId);
      expect(await count('media_plans', { retail_campaign_id: t.retailCampaignId })).toBe(2);
      expect(await count('placements', { media_plan_id: first.mediaPlanId })).toBe(2);
    });

    it('answers concurrent requests for one set with a single plan', async () => {
      const t = await tenant();
      const results = await Promise.all(Array.from({ length: 5 }, () => bed.mediaPlans.createAuto(t.org, t.accountId, { ...t, dimensions: ['160x600'] })));
      expect(new Set(results.map((r) => r.mediaPlanId)).size).toBe(1);
      expect(results.filter((r) => r.created)).toHaveLength(1);
      expect(await count('media_plans', { retail_campaign_id: t.retailCampaignId })).toBe(1);
    });

    it('refuses each dimension outside the whitelist or malformed, naming it by its index, and stores nothing', async () => {
      const t = await tenant();
      const refused = await rejectionOf(bed.mediaPlans.createAuto(t.org, t.accountId, { ...t, dimensions: ['300x250', '970x250', '300X250'] }));
      expect(refused).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
      expect(refused.errors).toEqual([
        { pointer: '/dimensions/1', code: 'DIMENSION_NOT_WHITELISTED', detail: "Dimension 970x250 is not in the organization's dimension whitelist." },
        expect.objectContaining({ pointer: '/dimensions/2', code: 'INVALID_FORMAT' }),
      ]);
      const empty = await rejectionOf(bed.mediaPlans.createAuto({ ...t.org, dimensionWhitelist: [] }, t.accountId, { ...t, dimensions: ['300x250'] }));
      expect(empty.errors).toEqual([expect.objectContaining({ pointer: '/dimensions/0', code: 'DIMENSION_NOT_WHITELISTED' })]);
      expect(await count('media_plans', { retail_campaign_id: t.retailCampaignId })).toBe(0);
    });

    it('refuses no dimensions, too many, and ids below 1', async () => {
      const t = await tenant();
      expect((await rejectionOf(bed.mediaPlans.createAuto(t.org, t.accountId, { ...t, dimensions: [] }))).errors).toEqual([
        expect.objectContaining({ pointer: '/dimensions', code: 'REQUIRED' }),
      ]);
      const tooMany = Array.from({ length: AUTO_MEDIA_PLAN_DIMENSIONS_MAX + 1 }, () => '300x250');
      expect((await rejectionOf(bed.mediaPlans.createAuto(t.org, t.accountId, { ...t, dimensions: tooMany }))).errors).toEqual([
        expect.objectContaining({ pointer: '/dimensions', code: 'TOO_MANY_ITEMS' }),
      ]);
      const ids = await rejectionOf(bed.mediaPlans.createAuto(t.org, t.accountId, { retailCampaignId: 0, mediaChannelIdx: -1, dimensions: ['300x250'] }));
      expect((ids.errors as { pointer: string }[]).map((e) => e.pointer)).toEqual(['/retailCampaignId', '/mediaChannelIdx']);
    });

    it('answers a campaign outside the account and a channel outside the org, deleted or missing, with 404', async () => {
      const t = await tenant();
      const stranger = await tenant();
      const attempt = (over: Partial<typeof t>) =>
        rejectionOf(bed.mediaPlans.createAuto(over.org ?? t.org, over.accountId ?? t.accountId, { ...t, ...over, dimensions: ['300x250'] }));
      expect(await attempt({ retailCampaignId: stranger.retailCampaignId })).toMatchObject({ status: 404, code: 'RETAIL_CAMPAIGN_NOT_FOUND' });
      expect(await attempt({ retailCampaignId: t.retailCampaignId + 1000 })).toMatchObject({ status: 404, code: 'RETAIL_CAMPAIGN_NOT_FOUND' });
      expect(await attempt({ mediaChannelIdx: stranger.mediaChannelIdx })).toMatchObject({ status: 404, code: 'MEDIA_CHANNEL_NOT_FOUND' });
      await bed.mediaChannels.remove(t.org.orgId, t.mediaChannelIdx);
      expect(await attempt({})).toMatchObject({ status: 404, code: 'MEDIA_CHANNEL_NOT_FOUND' });
      expect(await count('media_plans', { retail_campaign_id: t.retailCampaignId })).toBe(0);
    });

    it('writes plan, site and placements in one transaction: a failing placement leaves no plan and no site behind', async () => {
      const t = await tenant();
      const sitesBefore = await count('media_plan_sites', {});
      // The plan and its site are inserted before the placements, so this refusal comes after both.
      await bed.db.knex.raw(
        "CREATE TRIGGER refuse_placement_160x600 BEFORE INSERT ON placements FOR EACH ROW BEGIN IF NEW.dimension = '160x600' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused by test'; END IF; END",
      );
      try {
        const failed = await rejectionOf(bed.mediaPlans.createAuto(t.org, t.accountId, { ...t, dimensions: ['300x250', '160x600'] }));
        expect(String(failed.message)).toContain('refused by test');
      } finally {
        await bed.db.knex.raw('DROP TRIGGER refuse_placement_160x600');
      }
      expect(await count('media_plans', { retail_campaign_id: t.retailCampaignId })).toBe(0);
      expect(await count('media_plan_sites', {})).toBe(sitesBefore);
      // The same request succeeds once nothing refuses it: no half-written plan stands in its way.
      expect((await bed.mediaPlans.createAuto(t.org, t.accountId, { ...t, dimensions: ['300x250', '160x600'] })).created).toBe(true);
    });
  });

  describe('media plan read', () => {
    async function planWith(dimensions: string[]) {
      const t = await tenant();
      const { mediaPlanId } = await bed.mediaPlans.createAuto(t.org, t.accountId, { ...t, dimensions });
      return { ...t, mediaPlanId };
    }

    it('selects top-level fields, and refuses unknown names naming each of them', async () => {
      const p = await planWith(['300x250']);
      const idOnly = await bed.mediaPlans.get(p.accountId, p.mediaPlanId, ['mediaPlanId']);
      expect([idOnly.mediaPlanId, idOnly.mediaPlanName, idOnly.adServers]).toEqual([p.mediaPlanId, undefined, undefined]);
      const two = await bed.mediaPlans.get(p.accountId, p.mediaPlanId, [' mediaPlanName , adServers,']);
      expect(two.mediaPlanId).toBeUndefined();
      expect(two.mediaPlanName).toBe('Summer - Channel gam');
      expect(two.adServers).toHaveLength(1);
      const all = await bed.mediaPlans.get(p.accountId, p.mediaPlanId, [',']);
      expect([...all.selected].sort()).toEqual(['adServers', 'mediaPlanId', 'mediaPlanName']);
      const unknown = await rejectionOf(bed.mediaPlans.get(p.accountId, p.mediaPlanId, ['mediaPlanId,budget,Placements,budget']));
      expect(unknown).toMatchObject({
        status: 400,
        errors: [{ parameter: 'fields', code: 'UNKNOWN_FIELD', detail: expect.stringContaining('"budget", "Placements"') }],
      });
    });

    it('pages over placements in id order, keeping the ad server listed on an empty page', async () => {
      const p = await planWith(['728x90', '300x250', '160x600', '300x600']);
      const placementsOf = async (offset: number, limit: number) =>
        ((await bed.mediaPlans.get(p.accountId, p.mediaPlanId, ['adServers'], { offset, limit })).adServers ?? []).map((a) =>
          a.placements.map((x) => x.dimension),
        );
      expect(await placementsOf(0, 2)).toEqual([['160x600', '300x250']]);
      expect(await placementsOf(2, 2)).toEqual([['300x600', '728x90']]);
      expect(await placementsOf(3, 25)).toEqual([['728x90']]);
      expect(await placementsOf(10, 2)).toEqual([[]]);
      expect(await placementsOf(0, 0)).toEqual([['160x600', '300x250', '300x600', '728x90']]);
    });

    it("answers a missing plan and another account's with 404", async () => {
      const p = await planWith(['300x250']);
      expect(await rejectionOf(bed.mediaPlans.get(p.accountId + 5000, p.mediaPlanId, []))).toMatchObject({ status: 404, code: 'MEDIA_PLAN_NOT_FOUND' });
      expect(await rejectionOf(bed.mediaPlans.get(p.accountId, p.mediaPlanId + 1000, []))).toMatchObject({
        status: 404,
        detail: `Media plan ${p.mediaPlanId + 1000} was not found.`,
      });
    });

    it('still reads a plan whose channel was deleted afterwards', async () => {
      const p = await planWith(['300x250']);
      await bed.mediaChannels.remove(p.org.orgId, p.mediaChannelIdx);
      expect((await bed.mediaPlans.get(p.accountId, p.mediaPlanId, [])).adServers?.[0].placements).toHaveLength(1);
    });
  });
});
