import { admin, apiClient, E2eSystem, exchange, expectProblem, Http, httpClient, startE2eSystem } from './e2e-system';

jest.setTimeout(120_000);

describe('ad groups and media plans over HTTP (gateway -> channels-plans -> MariaDB)', () => {
  let system: E2eSystem;
  let http: Http;
  let orgId: string;
  let accountA: number;
  let accountB: number;
  let otherAccount: number;
  let fullKey: string;
  let otherOrgKey: string;
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

  beforeAll(async () => {
    system = await startE2eSystem('mp');
    http = httpClient(system.baseUrl);
    const a = admin(http);
    orgId = await a.createOrg({ name: 'Plans Retail', isRetailer: true, dimensionWhitelist: ['300x250', '728x90', '160x600'] });
    accountA = await a.createAccount(orgId, 'Plans US');
    accountB = await a.createAccount(orgId, 'Plans EU');
    const otherOrgId = await a.createOrg({ name: 'Other Retail', isRetailer: true, dimensionWhitelist: ['300x250'] });
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
});
