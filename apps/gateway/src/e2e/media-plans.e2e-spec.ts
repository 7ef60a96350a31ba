import { admin, apiClient, E2eSystem, exchange, expectProblem, Http, httpClient, startE2eSystem } from './e2e-system';

jest.setTimeout(120_000);

/** A Custom retail template as its account creates it (only to prove another account cannot build from it). */
const CUSTOM_TEMPLATE = {
  templateName: 'Private layout',
  retailerId: 777,
  inventoryType: 'onsite',
  adFormat: 'Display Banner',
  sourceOfProductInformation: 'Hybrid',
  productSelectionMethod: 'Fixed Product Selection',
  creativeStyle: ['Static Banner'],
  category: ['Garden'],
  templateType: ['Custom'],
  layouts: [
    {
      dimension: '300x250',
      backgroundColor: '#ffffff',
      logo: { x: 10, y: 10, w: 80, h: 20 },
      productImage: { x: 10, y: 40, w: 280, h: 110 },
      headline: { box: { x: 10, y: 160, w: 280, h: 24 }, color: '#111111', fontSize: 18, text: 'Grow more' },
      price: { box: { x: 10, y: 190, w: 100, h: 20 }, color: '#cc0000', fontSize: 16, text: '$4.99' },
      callToAction: { box: { x: 170, y: 210, w: 120, h: 30 }, color: '#ffffff', backgroundColor: '#2e7d32', fontSize: 14, text: 'Shop now' },
    },
  ],
};

describe('ad groups and media plans over HTTP (gateway -> channels-plans -> MariaDB)', () => {
  let system: E2eSystem;
  let http: Http;
  let orgId: string;
  let accountA: number;
  let accountB: number;
  let otherAccount: number;
  let fullKey: string;
  let otherOrgKey: string;
  let otherOrgId: string;
  /** A key holding every permission except the one named, to prove each operation asks for its own. */
  const keysWithout = new Map<string, string>();
  const keyWithout = (permission: string) => {
    const key = keysWithout.get(permission);
    if (!key) throw new Error(`no key without ${permission}`);
    return key;
  };

  const api = (key: string) => apiClient(http, { apiKey: key });
  const adGroupsPath = (account: number, campaign: number) => `/v2/accounts/${account}/retail-campaigns/${campaign}/ad-groups`;
  const createCampaign = async (account: number, isAdGroupCampaign: boolean) => {
    const result = await exchange(
      api(fullKey).POST('/v2/accounts/{accountId}/retail-campaigns', {
        params: { path: { accountId: account } },
        body: { campaignName: 'Plans campaign', isAdGroupCampaign },
      }),
    );
    if (result.status !== 201) throw new Error(result.text);
    return result.body.retailCampaignId;
  };
  const createAdGroup = (account: number, campaign: number, adGroupName: string, key = fullKey) =>
    exchange(
      api(key).POST('/v2/accounts/{accountId}/retail-campaigns/{retailCampaignIdx}/ad-groups', {
        params: { path: { accountId: account, retailCampaignIdx: campaign } },
        body: { adGroupName },
      }),
    );
  const listAdGroups = (account: number, campaign: number, key = fullKey) =>
    exchange(
      api(key).GET('/v2/accounts/{accountId}/retail-campaigns/{retailCampaignIdx}/ad-groups', {
        params: { path: { accountId: account, retailCampaignIdx: campaign } },
      }),
    );

  const createChannel = async (key = fullKey, adServerId = 'gam', name = `Channel ${adServerId} ${Math.random()}`) => {
    const result = await exchange(
      api(key).POST('/v2/org/{orgId}/retail-media-channels', {
        params: { path: { orgId: key === fullKey ? orgId : otherOrgId } },
        body: { name, adServerId, type: 'Off-site', activationConfiguration: { tagGeneration: true, creativeGeneration: false } },
      }),
    );
    if (result.status !== 201) throw new Error(result.text);
    return result.body.idx;
  };
  const autoPlan = (account: number, body: { dimensions: string[]; retailCampaignId: number; mediaChannelIdx: number }, key = fullKey) =>
    exchange(api(key).POST('/v2/accounts/{accountId}/media-plans/auto', { params: { path: { accountId: account } }, body }));
  const getPlan = (account: number, mediaPlanId: number, query: { fields?: string; offset?: number; limit?: number } = {}, key = fullKey) =>
    exchange(api(key).GET('/v2/accounts/{accountId}/media-plans/{mediaPlanId}', { params: { path: { accountId: account, mediaPlanId }, query } }));

  beforeAll(async () => {
    system = await startE2eSystem('mp');
    http = httpClient(system.baseUrl);
    const a = admin(http);
    orgId = await a.createOrg({ name: 'Plans Retail', isRetailer: true, dimensionWhitelist: ['300x250', '728x90', '160x600'] });
    accountA = await a.createAccount(orgId, 'Plans US');
    accountB = await a.createAccount(orgId, 'Plans EU');
    otherOrgId = await a.createOrg({ name: 'Other Retail', isRetailer: true, dimensionWhitelist: ['300x250'] });
    otherAccount = await a.createAccount(otherOrgId, 'Other US');
    fullKey = (await a.createKey({ orgId, permissions: ['*'] })).apiKey;
    otherOrgKey = (await a.createKey({ orgId: otherOrgId, permissions: ['*'] })).apiKey;
    const everything = ['MediaChannel_All', 'RetailCampaigns_View', 'RetailCampaigns_Edit', 'MediaPlan_Tags_Create', 'Campaigns_List', 'MediaPlan_View'];
    for (const missing of ['MediaPlan_Tags_Create', 'Campaigns_List', 'MediaPlan_View']) {
      keysWithout.set(missing, (await a.createKey({ orgId, permissions: everything.filter((p) => p !== missing) })).apiKey);
    }
  });

  afterAll(async () => {
    expect(await system?.stop()).toEqual([0, 0]);
  });

  describe('retail campaigns from a template (channels-plans asks templates over gRPC)', () => {
    const createFrom = (account: number, templateIdx: number, key = fullKey) =>
      exchange(
        api(key).POST('/v2/accounts/{accountId}/retail-campaigns', {
          params: { path: { accountId: account } },
          body: { campaignName: `From template ${templateIdx}`, templateIdx },
        }),
      );
    const campaignsOf = async (account: number) =>
      (await exchange(api(fullKey).GET('/v2/accounts/{accountId}/retail-campaigns', { params: { path: { accountId: account }, query: { limit: 100 } } }))).body
        .retailCampaigns;
    const systemTemplate = async () => {
      const page = await exchange(
        api(fullKey).POST('/v2/accounts/{accountId}/retail-campaigns/retail-templates', {
          params: { path: { accountId: accountA }, query: { offset: 0, limit: 1 } },
          body: { ownership: 'System' },
        }),
      );
      if (page.status !== 200 || page.body.templates.length === 0) throw new Error(`no System template: ${page.text}`);
      return page.body.templates[0].templateIdx;
    };

    it('creates a campaign from a System template and keeps its templateIdx', async () => {
      const templateIdx = await systemTemplate();
      const created = await createFrom(accountA, templateIdx);
      expect(created.status).toBe(201);
      const read = await exchange(
        api(fullKey).GET('/v2/accounts/{accountId}/retail-campaigns/{retailCampaignIdx}', {
          params: { path: { accountId: accountA, retailCampaignIdx: created.body.retailCampaignId } },
        }),
      );
      expect(read.body).toMatchObject({ templateIdx, status: 'DRAFT' });
    });

    it("refuses a template that does not exist, or another account's Custom template, naming /templateIdx, and stores nothing", async () => {
      const before = (await campaignsOf(accountA)).length;
      const missing = await createFrom(accountA, 987_654_321);
      expectProblem(missing, 400, 'VALIDATION_FAILED');
      expect(missing.body.errors).toEqual([{ pointer: '/templateIdx', code: 'TEMPLATE_NOT_FOUND', detail: expect.stringContaining('987654321') }]);

      const custom = await http('POST', `/v2/accounts/${accountB}/retail-campaigns/retail-templates/custom`, { key: fullKey, json: CUSTOM_TEMPLATE });
      expect(custom.status).toBe(201);
      const foreignIdx = custom.body.templateIdx as number;
      const foreign = await createFrom(accountA, foreignIdx);
      expectProblem(foreign, 400, 'VALIDATION_FAILED');
      expect(foreign.body.errors).toEqual([expect.objectContaining({ pointer: '/templateIdx', code: 'TEMPLATE_NOT_FOUND' })]);
      expect((await campaignsOf(accountA)).length).toBe(before);
      // The account that owns the Custom template may build from it.
      expect((await createFrom(accountB, foreignIdx)).status).toBe(201);
    });

    it('refuses a templateIdx below 1 or not an integer at the edge', async () => {
      for (const templateIdx of [0, 1.5, '7']) {
        const result = await http('POST', `/v2/accounts/${accountA}/retail-campaigns`, { key: fullKey, json: { campaignName: 'x', templateIdx } });
        expect(result.status).toBe(400);
        expect(result.body.errors).toEqual([expect.objectContaining({ pointer: '/templateIdx' })]);
      }
    });
  });

  describe('ad groups', () => {
    it('creates ad groups in an ad-group campaign and lists them as strings, in creation order', async () => {
      const campaign = await createCampaign(accountA, true);
      const first = await createAdGroup(accountA, campaign, ' Breakfast ');
      expect(first.status).toBe(201);
      expect(first.body.adGroupId).toMatch(/^[1-9][0-9]*$/);
      const second = await createAdGroup(accountA, campaign, 'Dinner');
      const listed = await listAdGroups(accountA, campaign);
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual({
        adGroupDetails: [
          { adGroupId: first.body.adGroupId, adGroupName: 'Breakfast' },
          { adGroupId: second.body.adGroupId, adGroupName: 'Dinner' },
        ],
      });
    });

    it('answers a taken name with 409 and a campaign that holds no ad groups with 409', async () => {
      const campaign = await createCampaign(accountA, true);
      await createAdGroup(accountA, campaign, 'Lunch');
      expectProblem(await createAdGroup(accountA, campaign, 'Lunch'), 409, 'AD_GROUP_NAME_TAKEN');
      const plain = await createCampaign(accountA, false);
      expectProblem(await createAdGroup(accountA, plain, 'Lunch'), 409, 'RETAIL_CAMPAIGN_NOT_AD_GROUP_CAMPAIGN');
      expect((await listAdGroups(accountA, plain)).body).toEqual({ adGroupDetails: [] });
    });

    it('refuses a blank, too long, missing or extra field, naming it', async () => {
      const campaign = await createCampaign(accountA, true);
      for (const [body, pointer] of [
        [{ adGroupName: '' }, '/adGroupName'],
        [{ adGroupName: 'x'.repeat(201) }, '/adGroupName'],
        [{}, '/adGroupName'],
        [{ adGroupName: 'ok', extra: 1 }, '/extra'],
      ] as const) {
        const result = await http('POST', adGroupsPath(accountA, campaign), { key: fullKey, json: body });
        expect(result.status).toBe(400);
        expect(result.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ pointer })]));
      }
      const blank = await createAdGroup(accountA, campaign, '   ');
      expectProblem(blank, 400, 'VALIDATION_FAILED');
      expect(blank.body.errors).toEqual([expect.objectContaining({ pointer: '/adGroupName', code: 'REQUIRED' })]);
      const badPath = await http('GET', adGroupsPath(accountA, 0), { key: fullKey });
      expect(badPath.status).toBe(400);
      expect(badPath.body.errors).toEqual([expect.objectContaining({ parameter: 'retailCampaignIdx' })]);
    });

    it("answers a missing campaign, another account's and another org's with 404", async () => {
      const campaign = await createCampaign(accountA, true);
      expectProblem(await createAdGroup(accountA, campaign + 1000, 'x'), 404, 'RETAIL_CAMPAIGN_NOT_FOUND');
      expectProblem(await listAdGroups(accountB, campaign), 404, 'RETAIL_CAMPAIGN_NOT_FOUND');
      expectProblem(await createAdGroup(accountB, campaign, 'x'), 404, 'RETAIL_CAMPAIGN_NOT_FOUND');
      expectProblem(await listAdGroups(otherAccount, campaign), 404, 'ACCOUNT_NOT_FOUND');
      expectProblem(await listAdGroups(accountA, campaign, otherOrgKey), 404, 'ACCOUNT_NOT_FOUND');
      expectProblem(await createAdGroup(accountA, campaign, 'x', otherOrgKey), 404, 'ACCOUNT_NOT_FOUND');
      expect((await listAdGroups(accountA, campaign)).body.adGroupDetails).toEqual([]);
    });

    it('requires MediaPlan_Tags_Create for both operations', async () => {
      const campaign = await createCampaign(accountA, true);
      const key = keyWithout('MediaPlan_Tags_Create');
      for (const result of [await createAdGroup(accountA, campaign, 'x', key), await listAdGroups(accountA, campaign, key)]) {
        expectProblem(result, 403, 'PERMISSION_DENIED');
        expect(result.body.requiredPermission).toBe('MediaPlan_Tags_Create');
      }
      expect((await listAdGroups(accountA, campaign)).body.adGroupDetails).toEqual([]);
    });
  });

  describe('auto media plans', () => {
    it('creates a plan (201) and answers the same campaign, channel and dimension set with the same plan (200)', async () => {
      const campaign = await createCampaign(accountA, false);
      const channel = await createChannel();
      const created = await autoPlan(accountA, { dimensions: ['728x90', '300x250'], retailCampaignId: campaign, mediaChannelIdx: channel });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({ mediaPlanId: expect.any(Number), msg: 'Media plan created successfully.' });
      const again = await autoPlan(accountA, { dimensions: ['300x250', '728x90', '300x250'], retailCampaignId: campaign, mediaChannelIdx: channel });
      expect(again.status).toBe(200);
      expect(again.body.mediaPlanId).toBe(created.body.mediaPlanId);
      const other = await autoPlan(accountA, { dimensions: ['300x250'], retailCampaignId: campaign, mediaChannelIdx: channel });
      expect(other.status).toBe(201);
      expect(other.body.mediaPlanId).not.toBe(created.body.mediaPlanId);
    });

    it('refuses a dimension outside the whitelist, naming it by its pointer', async () => {
      const campaign = await createCampaign(accountA, false);
      const channel = await createChannel();
      const refused = await autoPlan(accountA, { dimensions: ['300x250', '970x250'], retailCampaignId: campaign, mediaChannelIdx: channel });
      expectProblem(refused, 400, 'VALIDATION_FAILED');
      expect(refused.body.errors).toEqual([
        expect.objectContaining({ pointer: '/dimensions/1', code: 'DIMENSION_NOT_WHITELISTED', detail: expect.stringContaining('970x250') }),
      ]);
    });

    it('answers GET of .../media-plans/auto with 405 and Allow: POST, not as a media plan id', async () => {
      const wrongMethod = await http('GET', `/v2/accounts/${accountA}/media-plans/auto`, { key: fullKey });
      expectProblem(wrongMethod, 405, 'METHOD_NOT_ALLOWED');
      expect(wrongMethod.headers.get('allow')).toBe('POST');
      // A real id still reads (or is missing) as before.
      expectProblem(await http('GET', `/v2/accounts/${accountA}/media-plans/999999`, { key: fullKey }), 404, 'MEDIA_PLAN_NOT_FOUND');
    });

    it('refuses malformed bodies, naming each field', async () => {
      const path = `/v2/accounts/${accountA}/media-plans/auto`;
      for (const [body, pointers] of [
        [{ dimensions: [], retailCampaignId: 1, mediaChannelIdx: 1 }, ['/dimensions']],
        [{ dimensions: ['300by250'], retailCampaignId: 1, mediaChannelIdx: 1 }, ['/dimensions/0']],
        [{ dimensions: Array.from({ length: 51 }, () => '300x250'), retailCampaignId: 1, mediaChannelIdx: 1 }, ['/dimensions']],
        [{ dimensions: ['300x250'], retailCampaignId: 0, mediaChannelIdx: 'x' }, ['/mediaChannelIdx', '/retailCampaignId']],
        [{ dimensions: ['300x250'] }, ['/mediaChannelIdx', '/retailCampaignId']],
      ] as const) {
        const result = await http('POST', path, { key: fullKey, json: body });
        expect(result.status).toBe(400);
        expect([...new Set((result.body.errors as { pointer: string }[]).map((e) => e.pointer))].sort()).toEqual(pointers);
      }
    });

    it("answers an unknown or another account's campaign, and another org's or a deleted channel, with 404", async () => {
      const campaign = await createCampaign(accountA, false);
      const channel = await createChannel();
      const foreignChannel = await createChannel(otherOrgKey);
      const body = { dimensions: ['300x250'], retailCampaignId: campaign, mediaChannelIdx: channel };
      expectProblem(await autoPlan(accountA, { ...body, retailCampaignId: campaign + 1000 }), 404, 'RETAIL_CAMPAIGN_NOT_FOUND');
      expectProblem(await autoPlan(accountB, body), 404, 'RETAIL_CAMPAIGN_NOT_FOUND');
      expectProblem(await autoPlan(accountA, { ...body, mediaChannelIdx: foreignChannel }), 404, 'MEDIA_CHANNEL_NOT_FOUND');
      expectProblem(await autoPlan(accountA, body, otherOrgKey), 404, 'ACCOUNT_NOT_FOUND');
      expectProblem(await autoPlan(otherAccount, body), 404, 'ACCOUNT_NOT_FOUND');
      await exchange(api(fullKey).DELETE('/v2/org/{orgId}/retail-media-channels/{mediaChannelIdx}', { params: { path: { orgId, mediaChannelIdx: channel } } }));
      expectProblem(await autoPlan(accountA, body), 404, 'MEDIA_CHANNEL_NOT_FOUND');
    });

    it('requires Campaigns_List', async () => {
      const campaign = await createCampaign(accountA, false);
      const channel = await createChannel();
      const result = await autoPlan(accountA, { dimensions: ['300x250'], retailCampaignId: campaign, mediaChannelIdx: channel }, keyWithout('Campaigns_List'));
      expectProblem(result, 403, 'PERMISSION_DENIED');
      expect(result.body.requiredPermission).toBe('Campaigns_List');
    });
  });

  describe('media plan read', () => {
    let planId: number;
    let channelName: string;

    beforeAll(async () => {
      const campaign = await createCampaign(accountA, false);
      channelName = 'Read channel';
      const channel = await createChannel(fullKey, 'gam', channelName);
      const created = await autoPlan(accountA, { dimensions: ['728x90', '300x250', '160x600'], retailCampaignId: campaign, mediaChannelIdx: channel });
      planId = created.body.mediaPlanId;
    });

    it('reads the whole plan as MediaPlanV2', async () => {
      const result = await getPlan(accountA, planId);
      expect(result.status).toBe(200);
      const placement = (dimension: string) => ({
        placementId: expect.stringMatching(/^[1-9][0-9]*$/),
        placementName: `${dimension} - ${channelName}`,
        siteIdx: expect.any(Number),
        siteName: channelName,
        dimension,
        isTagPresent: false,
        additionalInfo: { adUnitType: 'display', dspName: 'Google Ad Manager', params: {} },
      });
      expect(result.body).toEqual({
        mediaPlanId: planId,
        mediaPlanName: `Plans campaign - ${channelName}`,
        adServers: [
          {
            adServerName: 'Google Ad Manager',
            adServerParams: { adServerId: 'gam', kind: 'display' },
            placements: ['160x600', '300x250', '728x90'].map(placement),
          },
        ],
      });
    });

    it('selects top-level fields and refuses an unknown one, naming the parameter', async () => {
      expect((await getPlan(accountA, planId, { fields: 'mediaPlanId' })).body).toEqual({ mediaPlanId: planId });
      expect(Object.keys((await getPlan(accountA, planId, { fields: 'mediaPlanName,adServers' })).body).sort()).toEqual(['adServers', 'mediaPlanName']);
      const refused = await getPlan(accountA, planId, { fields: 'mediaPlanId,budget' });
      expectProblem(refused, 400, 'VALIDATION_FAILED');
      expect(refused.body.errors).toEqual([
        expect.objectContaining({ parameter: 'fields', code: 'UNKNOWN_FIELD', detail: expect.stringContaining('"budget"') }),
      ]);
    });

    it('pages over placements with offset and limit, refusing a limit above the cap', async () => {
      const page = await getPlan(accountA, planId, { offset: 1, limit: 1 });
      expect(page.body.adServers?.[0].placements.map((p) => p.dimension)).toEqual(['300x250']);
      expect((await getPlan(accountA, planId, { offset: 5, limit: 10 })).body.adServers?.[0].placements).toEqual([]);
      const tooMany = await http('GET', `/v2/accounts/${accountA}/media-plans/${planId}?limit=101`, { key: fullKey });
      expect(tooMany.status).toBe(400);
      expect(tooMany.body.errors).toEqual([expect.objectContaining({ parameter: 'limit' })]);
      const badId = await http('GET', `/v2/accounts/${accountA}/media-plans/1e3`, { key: fullKey });
      expect(badId.status).toBe(400);
      expect(badId.body.errors).toEqual([expect.objectContaining({ parameter: 'mediaPlanId' })]);
    });

    it("answers a missing plan and another account's or org's with 404", async () => {
      expectProblem(await getPlan(accountA, planId + 1000), 404, 'MEDIA_PLAN_NOT_FOUND');
      expectProblem(await getPlan(accountB, planId), 404, 'MEDIA_PLAN_NOT_FOUND');
      expectProblem(await getPlan(accountA, planId, {}, otherOrgKey), 404, 'ACCOUNT_NOT_FOUND');
    });

    it('requires MediaPlan_View', async () => {
      const result = await getPlan(accountA, planId, {}, keyWithout('MediaPlan_View'));
      expectProblem(result, 403, 'PERMISSION_DENIED');
      expect(result.body.requiredPermission).toBe('MediaPlan_View');
    });
  });
});
