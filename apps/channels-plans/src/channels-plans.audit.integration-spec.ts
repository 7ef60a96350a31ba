import { openChannelsPlansTestBed, rejectionOf, type ChannelsPlansTestBed } from './channels-plans.test-support';

jest.setTimeout(60_000);

/** Every write channels-plans serves enters the audit trail, in the transaction of the change, under the caller. */
describe('channels-plans audit trail (real MariaDB)', () => {
  let bed: ChannelsPlansTestBed;
  const accountId = 900;
  const org = { orgId: 'org-audit', dimensionWhitelist: ['300x250', '728x90'] };

  beforeAll(async () => {
    bed = await openChannelsPlansTestBed('cpa');
  });

  afterAll(async () => {
    await bed?.close();
  });

  /** The events recorded by `work`, in order. */
  async function recordedBy(work: () => Promise<unknown>) {
    const before = (await bed.auditTrail()).length;
    await work();
    return (await bed.auditTrail()).slice(before);
  }

  it('records every create, update and delete with before, after and the caller', async () => {
    let campaignId = 0;
    let channelIdx = 0;
    let planId = 0;
    let placementId = 0;
    let siteIdx = 0;

    const created = await recordedBy(async () => {
      campaignId = await bed.retailCampaigns.create(accountId, { campaignName: 'Audit', isAdGroupCampaign: true, isSbt: false });
      channelIdx = await bed.mediaChannels.create(org.orgId, {
        name: 'Audit channel',
        adServerId: 'gam',
        type: 'Off-site',
        tagGeneration: true,
        creativeGeneration: false,
        additionalConfigurationJson: '{"apiKey":"do-not-keep"}',
      });
      await bed.adGroups.create(accountId, campaignId, 'Breakfast');
      planId = (await bed.mediaPlans.createAuto(org, accountId, { retailCampaignId: campaignId, mediaChannelIdx: channelIdx, dimensions: ['300x250'] }))
        .mediaPlanId;
      const placement = await bed.placements.create(accountId, planId, { placementName: 'Top', siteName: 'Home', dimension: '728x90', adServerId: 'gam' });
      placementId = placement.placementId;
      siteIdx = placement.siteIdx;
    });
    expect(created.map((e) => [e.resourceType, e.action, e.accountId ?? null])).toEqual([
      ['retail-campaign', 'create', accountId],
      ['media-channel', 'create', null],
      ['ad-group', 'create', accountId],
      ['media-plan', 'create', accountId],
      ['placement', 'create', accountId],
    ]);
    for (const event of created) {
      expect(event).toMatchObject({ actor: { type: 'api-key', keyId: 'test-key' }, before: null, after: expect.any(Object) });
    }
    expect(created[1]).toMatchObject({
      orgId: 'org-audit',
      operation: 'create',
      after: { name: 'Audit channel', additionalConfigurationJson: '{"apiKey":"[REDACTED]"}' },
    });
    expect(JSON.stringify(created)).not.toContain('do-not-keep');

    const updated = await recordedBy(async () => {
      await bed.retailCampaigns.update(accountId, campaignId, { campaignName: 'Audit 2' });
      await bed.mediaChannels.update(org.orgId, channelIdx, { status: 'Inactive' });
      await bed.placements.update(accountId, planId, { placementId, siteIdx, placementName: 'Bottom' });
      await bed.mediaChannels.remove(org.orgId, channelIdx);
    });
    expect(updated.map((e) => [e.resourceType, e.action, e.changedFields.includes(e.resourceType === 'media-channel' ? 'status' : 'placementName')])).toEqual([
      ['retail-campaign', 'update', false],
      ['media-channel', 'update', true],
      ['placement', 'update', true],
      // A delete lists every field of the record it removed.
      ['media-channel', 'delete', true],
    ]);
    expect(updated[0]).toMatchObject({ before: { campaignName: 'Audit' }, after: { campaignName: 'Audit 2' } });
    expect(updated[0]?.changedFields).toContain('campaignName');
    expect(updated[2]).toMatchObject({ before: { placementName: 'Top' }, after: { placementName: 'Bottom' } });
    expect(updated[3]).toMatchObject({ before: { idx: channelIdx }, after: null });
  });

  it('records nothing for a write that is refused', async () => {
    const none = await recordedBy(async () => {
      await rejectionOf(bed.mediaChannels.update(org.orgId, 999_999, { status: 'Inactive' }));
      await rejectionOf(bed.retailCampaigns.update(accountId, 999_999, { campaignName: 'x' }));
    });
    expect(none).toEqual([]);
  });
});
