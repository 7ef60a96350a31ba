import { ADDITIONAL_CONFIGURATION_MAX_BYTES, FREE_FORM_JSON_MAX_DEPTH } from '@contracts/domain';
import { openChannelsPlansTestBed, rejectionOf, TEST_ONSITE_API_BASE_URL, type ChannelsPlansTestBed } from '../channels-plans.test-support';
import type { CreateMediaChannelInput } from './media-channel.model';

jest.setTimeout(60_000);

describe('MediaChannelService (real MariaDB)', () => {
  let bed: ChannelsPlansTestBed;
  let nextOrg = 1;
  /** Each test works in orgs of its own, so names, counts and pages are its own. */
  const freshOrg = () => `org-${nextOrg++}`;
  const channel = (name: string, overrides: Partial<CreateMediaChannelInput> = {}): CreateMediaChannelInput => ({
    name,
    adServerId: 'gam',
    type: 'Off-site',
    tagGeneration: true,
    creativeGeneration: false,
    additionalConfigurationJson: '{"placement":"top"}',
    ...overrides,
  });
  const eventsFor = async (orgId: string) => (await bed.outbox()).filter((event) => event.payload.orgId === orgId);

  beforeAll(async () => {
    bed = await openChannelsPlansTestBed('mc');
  });

  afterAll(async () => {
    await bed?.close();
  });

  it('takes concurrent creates and updates of channels that share an ad server without a deadlock', async () => {
    const org = freshOrg();
    const seeded = await Promise.all(Array.from({ length: 8 }, (_, i) => bed.mediaChannels.create(org, channel(`Seed ${i}`))));
    // Every channel here is on the same ad server: a write must lock its own channel's row, not the ad server's.
    const writes = Array.from({ length: 24 }, (_, i) =>
      i % 2 === 0
        ? bed.mediaChannels.create(org, channel(`Busy ${i}`))
        : bed.mediaChannels.update(org, seeded[i % seeded.length], { additionalConfigurationJson: `{"placement":"p${i}"}` }),
    );
    const outcomes = await Promise.allSettled(writes);
    expect(outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => String((outcome as PromiseRejectedResult).reason))).toEqual([]);
    expect((await bed.mediaChannels.list(org)).total).toBe(8 + 12);
  });

  describe('create', () => {
    it('stores the channel as given, name trimmed, with the catalog entry joined in, and records the event', async () => {
      const org = freshOrg();
      const idx = await bed.mediaChannels.create(org, channel('  Homepage  '));
      expect(await bed.mediaChannels.get(org, idx)).toEqual({
        idx,
        orgId: org,
        name: 'Homepage',
        adServerId: 'gam',
        adServerName: 'Google Ad Manager',
        adServerKind: 'display',
        logoUrl: 'http://cdn.test/static/ad-servers/gam.svg',
        type: 'Off-site',
        status: 'Active',
        tagGeneration: true,
        creativeGeneration: false,
        additionalConfigurationJson: '{"placement":"top"}',
        updatedAt: expect.any(Date),
        deletedAt: null,
      });
      expect(await eventsFor(org)).toEqual([
        { subject: 'channels-plans.media-channel.created', payload: { type: 'media-channel.created', orgId: org, idx, occurredAt: expect.any(String) } },
      ]);
    });

    it('reports every invalid field at once and stores nothing', async () => {
      const org = freshOrg();
      const refused = await rejectionOf(
        bed.mediaChannels.create(org, channel(' ', { type: 'Billboard', adServerId: 'nope', additionalConfigurationJson: '[1]' })),
      );
      expect(refused).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
      expect((refused.errors as { pointer: string; code: string }[]).map((e) => [e.pointer, e.code])).toEqual([
        ['/name', 'REQUIRED'],
        ['/type', 'NOT_ALLOWED'],
        ['/additionalConfiguration', 'INVALID_TYPE'],
        ['/adServerId', 'UNKNOWN_AD_SERVER'],
      ]);
      expect(await rejectionOf(bed.mediaChannels.create(org, channel('x'.repeat(201))))).toMatchObject({
        errors: [expect.objectContaining({ pointer: '/name', code: 'TOO_LONG' })],
      });
      expect((await bed.mediaChannels.list(org)).total).toBe(0);
      expect(await eventsFor(org)).toEqual([]);
    });

    it('accepts no configuration at all', async () => {
      const org = freshOrg();
      const idx = await bed.mediaChannels.create(org, channel('Bare', { additionalConfigurationJson: null }));
      expect((await bed.mediaChannels.get(org, idx)).additionalConfigurationJson).toBeNull();
    });

    it('refuses a second live channel of the same name in the org, but not in another org', async () => {
      const org = freshOrg();
      await bed.mediaChannels.create(org, channel('Twin'));
      expect(await rejectionOf(bed.mediaChannels.create(org, channel(' Twin ')))).toMatchObject({
        status: 409,
        code: 'MEDIA_CHANNEL_NAME_TAKEN',
        detail: 'The organization already has a media channel named "Twin".',
      });
      await expect(bed.mediaChannels.create(freshOrg(), channel('Twin'))).resolves.toEqual(expect.any(Number));
      expect(await eventsFor(org)).toHaveLength(1);
    });

    it('lets exactly one of concurrent creates with the same name win, through the unique index', async () => {
      const org = freshOrg();
      const results = await Promise.allSettled(Array.from({ length: 4 }, () => bed.mediaChannels.create(org, channel('Race'))));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const result of results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')) {
        expect(result.reason).toMatchObject({ status: 409, code: 'MEDIA_CHANNEL_NAME_TAKEN' });
      }
      expect((await bed.mediaChannels.list(org)).total).toBe(1);
      expect(await eventsFor(org)).toHaveLength(1);
    });

    it('mints a sealed API key only for the on-site ad server', async () => {
      const org = freshOrg();
      const onsite = await bed.mediaChannels.create(org, channel('On site', { adServerId: 'onsite-rm', type: 'On-site' }));
      const display = await bed.mediaChannels.create(org, channel('Display'));
      const keys = await bed.db.knex('media_channels').whereIn('idx', [onsite, display]).orderBy('idx').pluck('api_key_sealed');
      expect(keys[0]).toBeInstanceOf(Buffer);
      expect(bed.secrets.open(keys[0] as Buffer)).toMatch(/^rmo_[A-Za-z0-9_-]{32}$/);
      expect(keys[1]).toBeNull();
    });
  });

  describe('configuration rules', () => {
    const org = 'config-org';
    const refusalOf = async (json: string) =>
      ((await rejectionOf(bed.mediaChannels.create(org, channel(`c${json.length}`, { additionalConfigurationJson: json })))).errors as unknown[])[0];
    const nested = (depth: number) => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);

    it('takes an object up to the byte cap and refuses one byte more', async () => {
      const padding = (total: number) => JSON.stringify({ p: 'x'.repeat(total - '{"p":""}'.length) });
      expect(Buffer.byteLength(padding(ADDITIONAL_CONFIGURATION_MAX_BYTES))).toBe(ADDITIONAL_CONFIGURATION_MAX_BYTES);
      await expect(
        bed.mediaChannels.create(org, channel('At cap', { additionalConfigurationJson: padding(ADDITIONAL_CONFIGURATION_MAX_BYTES) })),
      ).resolves.toEqual(expect.any(Number));
      expect(await refusalOf(padding(ADDITIONAL_CONFIGURATION_MAX_BYTES + 1))).toMatchObject({ pointer: '/additionalConfiguration', code: 'TOO_LARGE' });
    });

    it('counts bytes, not characters', async () => {
      const multiByte = JSON.stringify({ p: '€'.repeat(ADDITIONAL_CONFIGURATION_MAX_BYTES / 3) });
      expect(multiByte.length).toBeLessThan(ADDITIONAL_CONFIGURATION_MAX_BYTES);
      expect(await refusalOf(multiByte)).toMatchObject({ code: 'TOO_LARGE' });
    });

    it.each(['[]', '"text"', '42', 'null', 'true', '{"unclosed":', ''])('refuses %j as not a JSON object', async (json) => {
      expect(await refusalOf(json)).toMatchObject({ pointer: '/additionalConfiguration', code: 'INVALID_TYPE' });
    });

    it('takes nesting up to the depth cap and refuses one level more', async () => {
      await expect(bed.mediaChannels.create(org, channel('Deep', { additionalConfigurationJson: nested(FREE_FORM_JSON_MAX_DEPTH) }))).resolves.toEqual(
        expect.any(Number),
      );
      expect(await refusalOf(nested(FREE_FORM_JSON_MAX_DEPTH + 1))).toMatchObject({ code: 'TOO_DEEP' });
    });

    it('applies the same rules on update', async () => {
      const idx = await bed.mediaChannels.create(org, channel('Updated config'));
      const refused = await rejectionOf(bed.mediaChannels.update(org, idx, { additionalConfigurationJson: '["not","an","object"]' }));
      expect(refused).toMatchObject({ status: 400, errors: [expect.objectContaining({ code: 'INVALID_TYPE' })] });
      expect((await bed.mediaChannels.get(org, idx)).additionalConfigurationJson).toBe('{"placement":"top"}');
    });
  });

  describe('update', () => {
    it('changes only the fields given, replaces the configuration, and records the event', async () => {
      const org = freshOrg();
      const idx = await bed.mediaChannels.create(org, channel('Editable'));
      const before = await bed.mediaChannels.get(org, idx);
      await bed.mediaChannels.update(org, idx, { status: 'Inactive', creativeGeneration: true, additionalConfigurationJson: '{"placement":"side","size":2}' });
      const after = await bed.mediaChannels.get(org, idx);
      expect(after).toMatchObject({ status: 'Inactive', tagGeneration: true, creativeGeneration: true, name: 'Editable' });
      expect(JSON.parse(after.additionalConfigurationJson as string)).toEqual({ placement: 'side', size: 2 });
      expect(after.updatedAt.getTime()).toBeGreaterThanOrEqual(before.updatedAt.getTime());
      expect((await eventsFor(org)).map((event) => event.subject)).toEqual(['channels-plans.media-channel.created', 'channels-plans.media-channel.updated']);
    });

    it('refuses a status outside Active and Inactive, leaving the channel as it was', async () => {
      const org = freshOrg();
      const idx = await bed.mediaChannels.create(org, channel('Status'));
      expect(await rejectionOf(bed.mediaChannels.update(org, idx, { status: 'Deleted' }))).toMatchObject({
        status: 400,
        errors: [expect.objectContaining({ pointer: '/status', code: 'NOT_ALLOWED' })],
      });
      expect((await bed.mediaChannels.get(org, idx)).status).toBe('Active');
    });

    it("answers a missing, deleted or another org's channel as not found, recording nothing", async () => {
      const org = freshOrg();
      const idx = await bed.mediaChannels.create(org, channel('Mine'));
      expect(await rejectionOf(bed.mediaChannels.update(freshOrg(), idx, { status: 'Inactive' }))).toMatchObject({
        status: 404,
        code: 'MEDIA_CHANNEL_NOT_FOUND',
      });
      await bed.mediaChannels.remove(org, idx);
      expect(await rejectionOf(bed.mediaChannels.update(org, idx, { tagGeneration: false }))).toMatchObject({ status: 404 });
      expect((await eventsFor(org)).map((event) => event.subject)).toEqual(['channels-plans.media-channel.created', 'channels-plans.media-channel.deleted']);
    });
  });

  describe('soft delete', () => {
    it('hides the channel from get and list, frees its name, and records the event', async () => {
      const org = freshOrg();
      const idx = await bed.mediaChannels.create(org, channel('Gone'));
      await bed.mediaChannels.create(org, channel('Stays'));
      await bed.mediaChannels.remove(org, idx);

      expect(await rejectionOf(bed.mediaChannels.get(org, idx))).toMatchObject({ status: 404, code: 'MEDIA_CHANNEL_NOT_FOUND' });
      const listed = await bed.mediaChannels.list(org);
      expect(listed.items.map((c) => c.name)).toEqual(['Stays']);
      expect(listed.total).toBe(1);
      const again = await bed.mediaChannels.create(org, channel('Gone'));
      expect(again).not.toBe(idx);
      const row = await bed.db.knex('media_channels').where({ idx }).first('deleted_seq', 'deleted_at');
      expect(row).toMatchObject({ deleted_seq: idx, deleted_at: expect.any(Date) });
      expect((await eventsFor(org)).filter((event) => event.subject.endsWith('.deleted'))).toEqual([
        expect.objectContaining({ payload: expect.objectContaining({ idx }) }),
      ]);
    });

    it('refuses to delete twice, or in another org', async () => {
      const org = freshOrg();
      const idx = await bed.mediaChannels.create(org, channel('Once'));
      expect(await rejectionOf(bed.mediaChannels.remove(freshOrg(), idx))).toMatchObject({ status: 404 });
      await bed.mediaChannels.remove(org, idx);
      expect(await rejectionOf(bed.mediaChannels.remove(org, idx))).toMatchObject({ status: 404, code: 'MEDIA_CHANNEL_NOT_FOUND' });
    });
  });

  describe('cached list notices', () => {
    const noticesFor = (orgId: string) => bed.viewChanges.filter((change) => change.tenant === orgId);

    it("announces the org's channel list after each committed create, update and delete", async () => {
      const org = freshOrg();
      const idx = await bed.mediaChannels.create(org, channel('Announced'));
      await bed.mediaChannels.update(org, idx, { status: 'Inactive' });
      await bed.mediaChannels.remove(org, idx);
      expect(noticesFor(org)).toEqual([
        { view: 'media-channels', tenant: org },
        { view: 'media-channels', tenant: org },
        { view: 'media-channels', tenant: org },
      ]);
    });

    it('announces nothing for a write that changed nothing', async () => {
      const org = freshOrg();
      await bed.mediaChannels.create(org, channel('Taken'));
      const before = noticesFor(org).length;
      await rejectionOf(bed.mediaChannels.create(org, channel('Taken')));
      await rejectionOf(bed.mediaChannels.create(org, channel(' ')));
      await rejectionOf(bed.mediaChannels.update(org, 999_999, { status: 'Inactive' }));
      await rejectionOf(bed.mediaChannels.remove(org, 999_999));
      expect(noticesFor(org)).toHaveLength(before);
    });

    it('announces only once the change is visible to a reader', async () => {
      const org = freshOrg();
      const seenAtNotice: string[][] = [];
      // Reads the list at the moment of the notice, as a gateway refilling its cache would.
      bed.onViewChange = async () => {
        seenAtNotice.push((await bed.mediaChannels.list(org)).items.map((c) => c.name));
      };
      try {
        const idx = await bed.mediaChannels.create(org, channel('Visible'));
        await bed.mediaChannels.update(org, idx, { status: 'Inactive' });
        await bed.mediaChannels.remove(org, idx);
      } finally {
        bed.onViewChange = undefined;
      }
      expect(seenAtNotice).toEqual([['Visible'], ['Visible'], []]);
    });
  });

  describe('list', () => {
    it('pages the live channels of the org in idx order with the total', async () => {
      const org = freshOrg();
      const ids: number[] = [];
      for (let i = 1; i <= 7; i++) ids.push(await bed.mediaChannels.create(org, channel(`Channel ${i}`)));
      await bed.mediaChannels.create(freshOrg(), channel('Elsewhere'));

      const first = await bed.mediaChannels.list(org, { offset: 0, limit: 3 });
      expect(first.items.map((c) => c.idx)).toEqual(ids.slice(0, 3));
      expect(first.total).toBe(7);
      expect((await bed.mediaChannels.list(org, { offset: 6, limit: 3 })).items.map((c) => c.name)).toEqual(['Channel 7']);
      expect(await bed.mediaChannels.list(org, { offset: 50, limit: 3 })).toEqual({ items: [], total: 7 });
      // A page request that says nothing means the default first page.
      expect((await bed.mediaChannels.list(org, { offset: 0, limit: 0 })).items).toHaveLength(7);
    });

    it('reads booleans, times and configuration text the same way as the single read', async () => {
      const org = freshOrg();
      const idx = await bed.mediaChannels.create(org, channel('Same'));
      const [listed] = (await bed.mediaChannels.list(org)).items;
      expect(listed).toEqual(await bed.mediaChannels.get(org, idx));
      expect(listed?.tagGeneration).toBe(true);
      expect(listed?.updatedAt).toBeInstanceOf(Date);
    });
  });

  describe('template-campaign list (listTemplateCampaignMediaChannels)', () => {
    const account = 501;
    const retailer = (orgId: string) => ({ orgId, isRetailer: true });
    const plan = (campaignId: number, channelIdx: number) =>
      bed.db
        .knex('media_plans')
        .insert({ account_id: account, retail_campaign_id: campaignId, media_channel_idx: channelIdx, media_plan_name: `plan ${channelIdx}` });

    it("lists the org's live channels and the deleted ones the campaign uses, marking what it uses", async () => {
      const org = freshOrg();
      const anyTemplate = { isVisible: async () => true };
      const campaignId = await bed.retailCampaigns.create(
        account,
        { campaignName: 'Template', templateIdx: 3, isAdGroupCampaign: false, isSbt: false },
        anyTemplate,
      );
      const otherCampaign = await bed.retailCampaigns.create(account, { campaignName: 'Other', isAdGroupCampaign: false, isSbt: false });
      const used = await bed.mediaChannels.create(org, channel('Used'));
      const unused = await bed.mediaChannels.create(org, channel('Unused'));
      const usedThenDeleted = await bed.mediaChannels.create(org, channel('Used then deleted'));
      const deletedUnused = await bed.mediaChannels.create(org, channel('Deleted unused'));
      const usedByOther = await bed.mediaChannels.create(org, channel('Used by the other campaign'));
      await bed.mediaChannels.create(freshOrg(), channel('Another org'));
      await plan(campaignId, used);
      await plan(campaignId, usedThenDeleted);
      await plan(otherCampaign, usedByOther);
      await bed.mediaChannels.remove(org, usedThenDeleted);
      await bed.mediaChannels.remove(org, deletedUnused);
      await bed.mediaChannels.update(org, unused, { status: 'Inactive' });

      const page = await bed.mediaChannels.listForTemplateCampaign(retailer(org), account, campaignId);
      expect(page.total).toBe(4);
      expect(page.items.map((c) => [c.idx, c.isUtilized, c.status, c.deletedAt === null])).toEqual([
        [used, true, 'Active', true],
        [unused, false, 'Inactive', true],
        [usedThenDeleted, true, 'Active', false],
        [usedByOther, false, 'Active', true],
      ]);
      const second = await bed.mediaChannels.listForTemplateCampaign(retailer(org), account, campaignId, { offset: 2, limit: 2 });
      expect(second).toMatchObject({ total: 4, items: [expect.objectContaining({ idx: usedThenDeleted }), expect.objectContaining({ idx: usedByOther })] });
    });

    it('is for retailer organizations only, even when the campaign exists', async () => {
      const org = freshOrg();
      const campaignId = await bed.retailCampaigns.create(account, { campaignName: 'Brand', isAdGroupCampaign: false, isSbt: false });
      expect(await rejectionOf(bed.mediaChannels.listForTemplateCampaign({ orgId: org, isRetailer: false }, account, campaignId))).toMatchObject({
        status: 403,
        code: 'ORG_NOT_RETAILER',
        detail: expect.stringContaining(`Organization ${org} is not a retailer`),
      });
    });

    it("answers a missing campaign and another account's campaign as not found", async () => {
      const org = freshOrg();
      const campaignId = await bed.retailCampaigns.create(account, { campaignName: 'Mine', isAdGroupCampaign: false, isSbt: false });
      expect(await rejectionOf(bed.mediaChannels.listForTemplateCampaign(retailer(org), account + 1, campaignId))).toMatchObject({
        status: 404,
        code: 'RETAIL_CAMPAIGN_NOT_FOUND',
      });
      expect(await rejectionOf(bed.mediaChannels.listForTemplateCampaign(retailer(org), account, campaignId + 10_000))).toMatchObject({
        status: 404,
        code: 'RETAIL_CAMPAIGN_NOT_FOUND',
      });
    });
  });

  describe('ad-server connection (getAdServerConnection)', () => {
    it('gives the on-site endpoint for the org and the key minted at create', async () => {
      const org = freshOrg();
      const idx = await bed.mediaChannels.create(org, channel('On site', { adServerId: 'onsite-rm', type: 'On-site' }));
      const connection = await bed.mediaChannels.connection(org, 'onsite-rm');
      expect(connection.apiEndpoint).toBe(`${TEST_ONSITE_API_BASE_URL.replace(/\/$/, '')}/orgs/${org}`);
      const [sealed] = await bed.db.knex('media_channels').where({ idx }).pluck('api_key_sealed');
      expect(connection.apiKey).toBe(bed.secrets.open(sealed as Buffer));
      expect(await bed.mediaChannels.connection(org, 'onsite-rm')).toEqual(connection);
    });

    it('escapes the org id in the endpoint path', async () => {
      const org = 'odd org/1';
      await bed.mediaChannels.create(org, channel('On site', { adServerId: 'onsite-rm', type: 'On-site' }));
      expect((await bed.mediaChannels.connection(org, 'onsite-rm')).apiEndpoint).toMatch(/\/orgs\/odd%20org%2F1$/);
    });

    it('is empty for every other ad server, whether the org uses it or not', async () => {
      const org = freshOrg();
      await bed.mediaChannels.create(org, channel('Display'));
      expect(await bed.mediaChannels.connection(org, 'gam')).toEqual({});
      expect(await bed.mediaChannels.connection(org, 'meta')).toEqual({});
    });

    it('answers an unknown ad server, and an org without a live on-site channel, as not found', async () => {
      const org = freshOrg();
      expect(await rejectionOf(bed.mediaChannels.connection(org, 'nope'))).toMatchObject({ status: 404, code: 'AD_SERVER_NOT_FOUND' });
      expect(await rejectionOf(bed.mediaChannels.connection(org, 'onsite-rm'))).toMatchObject({ status: 404, code: 'MEDIA_CHANNEL_NOT_FOUND' });
      const idx = await bed.mediaChannels.create(org, channel('On site', { adServerId: 'onsite-rm', type: 'On-site' }));
      await bed.mediaChannels.remove(org, idx);
      expect(await rejectionOf(bed.mediaChannels.connection(org, 'onsite-rm'))).toMatchObject({ status: 404, code: 'MEDIA_CHANNEL_NOT_FOUND' });
    });
  });
});
