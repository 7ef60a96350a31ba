import { admin, apiClient, E2eSystem, exchange, expectProblem, Http, httpClient, JsonBody, startE2eSystem } from './e2e-system';

jest.setTimeout(120_000);

type PatchBody = JsonBody<'updatePlacement'>;

describe('placements over HTTP: bulk-tag data, ad-unit details, create and update (gateway -> channels-plans -> MariaDB)', () => {
  let system: E2eSystem;
  let http: Http;
  let orgId: string;
  let accountA: number;
  let accountB: number;
  let otherAccount: number;
  let fullKey: string;
  let otherOrgKey: string;
  const keysWithout = new Map<string, string>();
  const keyWithout = (permission: string) => {
    const key = keysWithout.get(permission);
    if (!key) throw new Error(`no key without ${permission}`);
    return key;
  };

  const api = (key = fullKey) => apiClient(http, { apiKey: key });
  const ok = <T extends { status: number; text: string }>(result: T, status = 200): T => {
    if (result.status !== status) throw new Error(`expected ${status}, got ${result.status}: ${result.text}`);
    return result;
  };

  /** A campaign of `account` with an auto plan on a GAM channel of the org: the plan and its placements. */
  async function planIn(account: number, dimensions = ['300x250', '728x90']) {
    const campaign = ok(
      await exchange(
        api().POST('/v2/accounts/{accountId}/retail-campaigns', { params: { path: { accountId: account } }, body: { campaignName: 'Placements' } }),
      ),
      201,
    ).body.retailCampaignId;
    const channel = ok(
      await exchange(
        api().POST('/v2/org/{orgId}/retail-media-channels', {
          params: { path: { orgId } },
          body: {
            name: `GAM ${Math.random()}`,
            adServerId: 'gam',
            type: 'Off-site',
            activationConfiguration: { tagGeneration: true, creativeGeneration: false },
          },
        }),
      ),
      201,
    ).body.idx;
    const mediaPlanId = ok(
      await exchange(
        api().POST('/v2/accounts/{accountId}/media-plans/auto', {
          params: { path: { accountId: account } },
          body: { dimensions, retailCampaignId: campaign, mediaChannelIdx: channel },
        }),
      ),
      201,
    ).body.mediaPlanId;
    const placements = (await bulk(account, mediaPlanId, campaign)).body.adServers.flatMap((a) => a.placements);
    return { account, campaign, mediaPlanId, placements };
  }

  const bulk = (account: number, mediaPlanId: number, campaignId: number, key = fullKey) =>
    exchange(
      api(key).GET('/v2/accounts/{accountId}/media-plans-bulkTag/{mediaPlanId}/campaign/{campaignId}', {
        params: { path: { accountId: account, mediaPlanId, campaignId } },
      }),
    );
  const adUnits = (account: number, mediaPlanId: number, campaignId: number, placementId: string, key = fullKey) =>
    exchange(
      api(key).GET('/v2/accounts/{accountId}/media-plans/{mediaPlanId}/campaign/{campaignId}/adunitdetails', {
        params: { path: { accountId: account, mediaPlanId, campaignId }, query: { placementId } },
      }),
    );
  const create = (
    account: number,
    mediaPlanId: number,
    body: { placementName: string; siteName: string; dimension: string; adServer: string },
    key = fullKey,
  ) => exchange(api(key).POST('/v2/accounts/{accountId}/media-plans/{mediaPlanId}/placement', { params: { path: { accountId: account, mediaPlanId } }, body }));
  const patch = (account: number, mediaPlanId: number, body: PatchBody, key = fullKey) =>
    exchange(api(key).PATCH('/v2/accounts/{accountId}/media-plans/{mediaPlanId}/placement', { params: { path: { accountId: account, mediaPlanId } }, body }));
  /** The pointers (or parameters) a 400 names, sorted and without repeats. */
  const refusedAt = (result: { status: number; body: { errors?: Record<string, unknown>[] } }) => {
    expect(result.status).toBe(400);
    return [...new Set((result.body.errors ?? []).map((e) => String(e.pointer ?? e.parameter)))].sort();
  };

  beforeAll(async () => {
    system = await startE2eSystem('pl');
    http = httpClient(system.baseUrl);
    const a = admin(http);
    orgId = await a.createOrg({ name: 'Placements Retail', isRetailer: true, dimensionWhitelist: ['300x250', '728x90', '160x600'] });
    accountA = await a.createAccount(orgId, 'Placements US');
    accountB = await a.createAccount(orgId, 'Placements EU');
    const otherOrgId = await a.createOrg({ name: 'Other Placements', isRetailer: true });
    otherAccount = await a.createAccount(otherOrgId, 'Other US');
    fullKey = (await a.createKey({ orgId, permissions: ['*'] })).apiKey;
    otherOrgKey = (await a.createKey({ orgId: otherOrgId, permissions: ['*'] })).apiKey;
    const everything = ['MediaChannel_All', 'RetailCampaigns_View', 'RetailCampaigns_Edit', 'Campaigns_List', 'MediaPlan_View', 'MediaPlan_Edit'];
    for (const missing of ['MediaPlan_View', 'MediaPlan_Edit']) {
      keysWithout.set(missing, (await a.createKey({ orgId, permissions: everything.filter((p) => p !== missing) })).apiKey);
    }
  });

  afterAll(async () => {
    expect(await system?.stop()).toEqual([0, 0]);
  });

  describe('bulk-tag data (getBulkTagData)', () => {
    it('lists every placement grouped by ad server, with the ad server id and kind, params and isTagPresent', async () => {
      const p = await planIn(accountA);
      ok(await create(accountA, p.mediaPlanId, { placementName: 'Pre-roll', siteName: 'Video', dimension: '640x360', adServer: 'ttd' }), 201);
      ok(await patch(accountA, p.mediaPlanId, { placementId: p.placements[0].placementId, siteIdx: p.placements[0].siteIdx, adChoices: true }));
      // The tagging service marks a placement once a tag exists for it; here the fact is put in place directly.
      await system.sql('channels_plans', 'UPDATE placements SET is_tag_present = TRUE WHERE placement_id = ?', [Number(p.placements[1].placementId)]);
      const result = ok(await bulk(accountA, p.mediaPlanId, p.campaign));
      const placement = (dimension: string, isTagPresent: boolean, params: object, adUnitType = 'display', dspName = 'Google Ad Manager') =>
        expect.objectContaining({
          placementId: expect.stringMatching(/^[1-9][0-9]*$/),
          dimension,
          isTagPresent,
          additionalInfo: { adUnitType, dspName, params },
        });
      expect(result.body).toEqual({
        mediaPlanId: p.mediaPlanId,
        mediaPlanName: expect.stringMatching(/^Placements - GAM /),
        adServers: [
          {
            adServerName: 'Google Ad Manager',
            adServerParams: { adServerId: 'gam', kind: 'display' },
            placements: [placement('300x250', false, { adChoices: true }), placement('728x90', true, {})],
          },
          {
            adServerName: 'The Trade Desk',
            adServerParams: { adServerId: 'ttd', kind: 'video' },
            placements: [placement('640x360', false, {}, 'in-stream-video', 'The Trade Desk')],
          },
        ],
      });
    });

    it("answers a plan of another campaign, a missing campaign, another account's and another org's with 404", async () => {
      const p = await planIn(accountA);
      const sibling = await planIn(accountA);
      const stranger = await planIn(accountB);
      expectProblem(await bulk(accountA, p.mediaPlanId, sibling.campaign), 404, 'MEDIA_PLAN_NOT_FOUND');
      expectProblem(await bulk(accountA, p.mediaPlanId, p.campaign + 1000), 404, 'RETAIL_CAMPAIGN_NOT_FOUND');
      expectProblem(await bulk(accountA, p.mediaPlanId + 1000, p.campaign), 404, 'MEDIA_PLAN_NOT_FOUND');
      expectProblem(await bulk(accountA, stranger.mediaPlanId, stranger.campaign), 404, 'RETAIL_CAMPAIGN_NOT_FOUND');
      expectProblem(await bulk(accountB, p.mediaPlanId, stranger.campaign), 404, 'MEDIA_PLAN_NOT_FOUND');
      expectProblem(await bulk(otherAccount, p.mediaPlanId, p.campaign), 404, 'ACCOUNT_NOT_FOUND');
      expectProblem(await bulk(accountA, p.mediaPlanId, p.campaign, otherOrgKey), 404, 'ACCOUNT_NOT_FOUND');
    });

    it('refuses ids that are not positive decimal integers, naming the parameter', async () => {
      for (const [path, parameter] of [
        [`/v2/accounts/${accountA}/media-plans-bulkTag/0/campaign/1`, 'mediaPlanId'],
        [`/v2/accounts/${accountA}/media-plans-bulkTag/1/campaign/x`, 'campaignId'],
        [`/v2/accounts/${accountA}/media-plans-bulkTag/1e3/campaign/1`, 'mediaPlanId'],
      ] as const) {
        expect(refusedAt(await http('GET', path, { key: fullKey }))).toEqual([parameter]);
      }
    });

    it('requires MediaPlan_View', async () => {
      const p = await planIn(accountA);
      const result = await bulk(accountA, p.mediaPlanId, p.campaign, keyWithout('MediaPlan_View'));
      expectProblem(result, 403, 'PERMISSION_DENIED');
      expect(result.body.requiredPermission).toBe('MediaPlan_View');
      expect((await bulk(accountA, p.mediaPlanId, p.campaign, keyWithout('MediaPlan_Edit'))).status).toBe(200);
    });
  });

  describe('ad-unit details (getAdUnitDetails)', () => {
    it("answers the groups the placement's dimension offers, from the seeded catalog", async () => {
      const p = await planIn(accountA, ['300x250', '728x90']);
      const [medium, leaderboard] = p.placements;
      const result = ok(await adUnits(accountA, p.mediaPlanId, p.campaign, medium.placementId));
      expect(result.body).toEqual({
        placementId: medium.placementId,
        inBannerAdUnit: {
          adUnitTypes: [
            { id: 101, name: 'Standard Banner' },
            { id: 102, name: 'Rich Media Expandable' },
            { id: 103, name: 'Carousel' },
            { id: 104, name: 'In-Banner Video' },
          ],
          hasMobileUnit: true,
          mobileBannerType: ['Standard', 'Sticky', 'Interstitial', 'Expandable'],
          mobileFlexCreativeUnitType: { 'Flex Banner': 1, 'Flex Interstitial': 2, 'Flex Scroller': 3 },
          dimension: '300x250',
        },
        mobileAdUnit: {
          adUnitTypes: [
            { id: 301, name: 'Mobile Banner' },
            { id: 303, name: 'Mobile In-Web Video' },
          ],
          dimension: '300x250',
        },
        nativeAdUnit: {
          adUnitTypes: [
            { id: 401, name: 'Native In-Feed' },
            { id: 402, name: 'Native Product Card' },
          ],
          dimension: '300x250',
          responseFormat: { '1': 'JSON', '2': 'OpenRTB Native 1.2', '3': 'HTML' },
        },
      });
      const wide = ok(await adUnits(accountA, p.mediaPlanId, p.campaign, leaderboard.placementId)).body;
      expect(Object.keys(wide).sort()).toEqual(['inBannerAdUnit', 'placementId']);
      expect(wide.inBannerAdUnit).toMatchObject({ hasMobileUnit: false, mobileBannerType: [], mobileFlexCreativeUnitType: {} });

      const video = ok(await create(accountA, p.mediaPlanId, { placementName: 'Player', siteName: 'Video', dimension: '640x360', adServer: 'ttd' }), 201);
      expect(ok(await adUnits(accountA, p.mediaPlanId, p.campaign, video.body.placementId)).body.inStreamAdUnit).toEqual({
        adTagType: ['VAST 4.2', 'VAST 4.1', 'VAST 4.0', 'VAST 3.0'],
        dynamicPriVideo: true,
        playerType: [
          { name: 'Google IMA HTML5', version: '3' },
          { name: 'Video.js', version: '8' },
          { name: 'JW Player', version: '8' },
        ],
        videoTagType: ['url', 'xml'],
      });
      const odd = ok(await create(accountA, p.mediaPlanId, { placementName: 'Odd', siteName: 'Video', dimension: '123x45', adServer: 'ttd' }), 201);
      expect(ok(await adUnits(accountA, p.mediaPlanId, p.campaign, odd.body.placementId)).body).toEqual({ placementId: odd.body.placementId });
    });

    it("answers a placement outside the plan, a plan of another campaign, another account's and another org's with 404", async () => {
      const p = await planIn(accountA);
      const other = await planIn(accountA);
      const stranger = await planIn(accountB);
      const [mine] = p.placements;
      expectProblem(await adUnits(accountA, p.mediaPlanId, p.campaign, other.placements[0].placementId), 404, 'PLACEMENT_NOT_FOUND');
      expectProblem(await adUnits(accountA, p.mediaPlanId, p.campaign, '999999999999'), 404, 'PLACEMENT_NOT_FOUND');
      expectProblem(await adUnits(accountA, p.mediaPlanId, other.campaign, mine.placementId), 404, 'MEDIA_PLAN_NOT_FOUND');
      expectProblem(await adUnits(accountB, p.mediaPlanId, stranger.campaign, mine.placementId), 404, 'MEDIA_PLAN_NOT_FOUND');
      expectProblem(await adUnits(otherAccount, p.mediaPlanId, p.campaign, mine.placementId), 404, 'ACCOUNT_NOT_FOUND');
      expectProblem(await adUnits(accountA, p.mediaPlanId, p.campaign, mine.placementId, otherOrgKey), 404, 'ACCOUNT_NOT_FOUND');
    });

    it('refuses a missing, malformed or repeated placementId and unknown query parameters, naming each', async () => {
      const base = `/v2/accounts/${accountA}/media-plans/1/campaign/1/adunitdetails`;
      for (const [query, parameter] of [
        ['', 'placementId'],
        ['?placementId=', 'placementId'],
        ['?placementId=0', 'placementId'],
        ['?placementId=07', 'placementId'],
        ['?placementId=12a', 'placementId'],
        ['?placementId=1234567890123456', 'placementId'],
        ['?placementId=1&placementId=2', 'placementId'],
        ['?placementId=1&offset=2', 'offset'],
      ] as const) {
        expect([query, refusedAt(await http('GET', `${base}${query}`, { key: fullKey }))]).toEqual([query, [parameter]]);
      }
      expect(refusedAt(await http('GET', `/v2/accounts/${accountA}/media-plans/0/campaign/1/adunitdetails?placementId=1`, { key: fullKey }))).toEqual([
        'mediaPlanId',
      ]);
    });

    it('requires MediaPlan_View', async () => {
      const p = await planIn(accountA);
      const result = await adUnits(accountA, p.mediaPlanId, p.campaign, p.placements[0].placementId, keyWithout('MediaPlan_View'));
      expectProblem(result, 403, 'PERMISSION_DENIED');
      expect(result.body.requiredPermission).toBe('MediaPlan_View');
    });
  });

  describe('placement create (createPlacement)', () => {
    it("creates the placement on the plan's site of that name on the ad server, and the plan reads it", async () => {
      const p = await planIn(accountA, ['300x250']);
      const [auto] = p.placements;
      const created = ok(
        await create(accountA, p.mediaPlanId, { placementName: ' Skyscraper ', siteName: auto.siteName, dimension: '160x600', adServer: 'gam' }),
        201,
      );
      expect(created.body).toEqual({
        placementId: expect.stringMatching(/^[1-9][0-9]*$/),
        placementName: 'Skyscraper',
        siteIdx: auto.siteIdx,
        siteName: auto.siteName,
        dimension: '160x600',
        isTagPresent: false,
        additionalInfo: { adUnitType: 'display', dspName: 'Google Ad Manager', params: {} },
      });
      const onNewSite = ok(
        await create(accountA, p.mediaPlanId, { placementName: 'Lobby', siteName: 'Stores', dimension: '1080x1920', adServer: 'vistar' }),
        201,
      );
      expect(onNewSite.body).toMatchObject({ siteName: 'Stores', additionalInfo: { adUnitType: 'dooh-screen', dspName: 'Vistar Media' } });
      expect(onNewSite.body.siteIdx).not.toBe(auto.siteIdx);
      const plan = ok(
        await exchange(
          api().GET('/v2/accounts/{accountId}/media-plans/{mediaPlanId}', { params: { path: { accountId: accountA, mediaPlanId: p.mediaPlanId } } }),
        ),
      );
      expect(plan.body.adServers?.map((a) => [a.adServerName, a.placements.map((x) => x.placementId)])).toEqual([
        ['Google Ad Manager', [auto.placementId, created.body.placementId]],
        ['Vistar Media', [onNewSite.body.placementId]],
      ]);
    });

    it('answers a name taken on the site with 409', async () => {
      const p = await planIn(accountA, ['300x250']);
      const body = { placementName: 'Twice', siteName: 'Home', dimension: '300x250', adServer: 'gam' };
      ok(await create(accountA, p.mediaPlanId, body), 201);
      expectProblem(await create(accountA, p.mediaPlanId, { ...body, placementName: ' twice ', dimension: '728x90' }), 409, 'PLACEMENT_NAME_TAKEN');
      ok(await create(accountA, p.mediaPlanId, { ...body, siteName: 'Elsewhere' }), 201);
    });

    it('refuses every bad field, naming it, and stores nothing', async () => {
      const p = await planIn(accountA, ['300x250']);
      const path = `/v2/accounts/${accountA}/media-plans/${p.mediaPlanId}/placement`;
      const valid = { placementName: 'P', siteName: 'S', dimension: '300x250', adServer: 'gam' };
      for (const [body, pointers] of [
        [{}, ['/adServer', '/dimension', '/placementName', '/siteName']],
        [{ ...valid, placementName: '' }, ['/placementName']],
        [{ ...valid, placementName: 'x'.repeat(201) }, ['/placementName']],
        [{ ...valid, siteName: '' }, ['/siteName']],
        [{ ...valid, siteName: 'x'.repeat(201) }, ['/siteName']],
        [{ ...valid, dimension: '300 x 250' }, ['/dimension']],
        [{ ...valid, dimension: '0x250' }, ['/dimension']],
        [{ ...valid, dimension: '300x250x1' }, ['/dimension']],
        [{ ...valid, dimension: 300 }, ['/dimension']],
        [{ ...valid, adServer: '' }, ['/adServer']],
        [{ ...valid, adServer: 'x'.repeat(65) }, ['/adServer']],
        [{ ...valid, adServer: 'not-a-server' }, ['/adServer']],
        [{ ...valid, placementName: '   ' }, ['/placementName']],
        [{ ...valid, isTagPresent: true }, ['/isTagPresent']],
      ] as const) {
        expect([body, refusedAt(await http('POST', path, { key: fullKey, json: body }))]).toEqual([body, pointers]);
      }
      const unknownServer = await http('POST', path, { key: fullKey, json: { ...valid, adServer: 'not-a-server' } });
      expect(unknownServer.body.errors).toEqual([
        expect.objectContaining({ pointer: '/adServer', code: 'NOT_ALLOWED', detail: expect.stringContaining('gam') }),
      ]);
      expect(ok(await bulk(accountA, p.mediaPlanId, p.campaign)).body.adServers.flatMap((a) => a.placements)).toHaveLength(1);
    });

    it("answers a missing plan, another account's and another org's with 404", async () => {
      const p = await planIn(accountA, ['300x250']);
      const body = { placementName: 'Nope', siteName: 'S', dimension: '300x250', adServer: 'gam' };
      expectProblem(await create(accountA, p.mediaPlanId + 1000, body), 404, 'MEDIA_PLAN_NOT_FOUND');
      expectProblem(await create(accountB, p.mediaPlanId, body), 404, 'MEDIA_PLAN_NOT_FOUND');
      expectProblem(await create(otherAccount, p.mediaPlanId, body), 404, 'ACCOUNT_NOT_FOUND');
      expectProblem(await create(accountA, p.mediaPlanId, body, otherOrgKey), 404, 'ACCOUNT_NOT_FOUND');
      expect(ok(await bulk(accountA, p.mediaPlanId, p.campaign)).body.adServers.flatMap((a) => a.placements)).toHaveLength(1);
    });

    it('requires MediaPlan_Edit', async () => {
      const p = await planIn(accountA, ['300x250']);
      const result = await create(
        accountA,
        p.mediaPlanId,
        { placementName: 'P', siteName: 'S', dimension: '300x250', adServer: 'gam' },
        keyWithout('MediaPlan_Edit'),
      );
      expectProblem(result, 403, 'PERMISSION_DENIED');
      expect(result.body.requiredPermission).toBe('MediaPlan_Edit');
    });
  });

  describe('placement update (updatePlacement)', () => {
    it('sets the ad-server params, renames and resizes, keeping the params not named', async () => {
      const p = await planIn(accountA, ['300x250']);
      const [auto] = p.placements;
      const first = ok(
        await patch(accountA, p.mediaPlanId, {
          placementId: auto.placementId,
          siteIdx: auto.siteIdx,
          adChoices: true,
          ccpa: false,
          embeddable: true,
          gdprMacro: true,
          mraid: false,
          noScriptTag: true,
          privacy: true,
          expansionUnit: 'push-down',
          gdprConsentMacro: '${GDPR_CONSENT_755}',
          tagType: 'javascript',
        }),
      );
      const params = {
        adChoices: true,
        ccpa: false,
        embeddable: true,
        gdprMacro: true,
        mraid: false,
        noScriptTag: true,
        privacy: true,
        expansionUnit: 'push-down',
        gdprConsentMacro: '${GDPR_CONSENT_755}',
        tagType: 'javascript',
      };
      expect(first.body).toEqual({ ...auto, additionalInfo: { ...auto.additionalInfo, params } });
      const second = ok(
        await patch(accountA, p.mediaPlanId, {
          placementId: auto.placementId,
          siteIdx: auto.siteIdx,
          placementName: 'Hero',
          dimension: '970x250',
          mraid: true,
        }),
      );
      expect(second.body).toMatchObject({ placementName: 'Hero', dimension: '970x250', additionalInfo: { params: { ...params, mraid: true } } });
      const read = ok(await bulk(accountA, p.mediaPlanId, p.campaign)).body.adServers[0].placements[0];
      expect(read).toEqual(second.body);
    });

    it('moves the placement to another site or ad server, with the ad-unit type of its kind', async () => {
      const p = await planIn(accountA, ['300x250', '728x90']);
      const [first] = p.placements;
      const moved = ok(await patch(accountA, p.mediaPlanId, { placementId: first.placementId, siteIdx: first.siteIdx, adServer: 'ttd', siteName: 'Video' }));
      expect(moved.body).toMatchObject({ siteName: 'Video', additionalInfo: { adUnitType: 'in-stream-video', dspName: 'The Trade Desk' } });
      expect(moved.body.siteIdx).not.toBe(first.siteIdx);
      expect(ok(await bulk(accountA, p.mediaPlanId, p.campaign)).body.adServers.map((a) => [a.adServerParams.adServerId, a.placements.length])).toEqual([
        ['gam', 1],
        ['ttd', 1],
      ]);
      // The old siteIdx no longer identifies it.
      expectProblem(await patch(accountA, p.mediaPlanId, { placementId: first.placementId, siteIdx: first.siteIdx, mraid: true }), 404, 'PLACEMENT_NOT_FOUND');
    });

    it('answers a name taken on the site with 409 and changes nothing', async () => {
      const p = await planIn(accountA, ['300x250', '728x90']);
      const [first, second] = p.placements;
      expectProblem(
        await patch(accountA, p.mediaPlanId, { placementId: first.placementId, siteIdx: first.siteIdx, placementName: second.placementName, adChoices: true }),
        409,
        'PLACEMENT_NAME_TAKEN',
      );
      expect(ok(await bulk(accountA, p.mediaPlanId, p.campaign)).body.adServers[0].placements[0]).toEqual(first);
    });

    it("answers an unknown placement, a wrong site, another plan's placement, another account's and another org's with 404", async () => {
      const p = await planIn(accountA, ['300x250']);
      const other = await planIn(accountA, ['300x250']);
      const stranger = await planIn(accountB, ['300x250']);
      const [mine] = p.placements;
      const change = { mraid: true };
      expectProblem(await patch(accountA, p.mediaPlanId, { placementId: '999999999999', siteIdx: mine.siteIdx, ...change }), 404, 'PLACEMENT_NOT_FOUND');
      expectProblem(
        await patch(accountA, p.mediaPlanId, { placementId: mine.placementId, siteIdx: mine.siteIdx + 1000, ...change }),
        404,
        'PLACEMENT_NOT_FOUND',
      );
      const theirs = other.placements[0];
      expectProblem(await patch(accountA, p.mediaPlanId, { placementId: theirs.placementId, siteIdx: theirs.siteIdx, ...change }), 404, 'PLACEMENT_NOT_FOUND');
      const strangers = stranger.placements[0];
      expectProblem(
        await patch(accountA, stranger.mediaPlanId, { placementId: strangers.placementId, siteIdx: strangers.siteIdx, ...change }),
        404,
        'MEDIA_PLAN_NOT_FOUND',
      );
      expectProblem(await patch(otherAccount, p.mediaPlanId, { placementId: mine.placementId, siteIdx: mine.siteIdx, ...change }), 404, 'ACCOUNT_NOT_FOUND');
      expectProblem(
        await patch(accountA, p.mediaPlanId, { placementId: mine.placementId, siteIdx: mine.siteIdx, ...change }, otherOrgKey),
        404,
        'ACCOUNT_NOT_FOUND',
      );
      expect(ok(await bulk(accountA, p.mediaPlanId, p.campaign)).body.adServers[0].placements[0].additionalInfo.params).toEqual({});
    });

    it('refuses every bad field, naming it, and changes nothing', async () => {
      const p = await planIn(accountA, ['300x250']);
      const [auto] = p.placements;
      const path = `/v2/accounts/${accountA}/media-plans/${p.mediaPlanId}/placement`;
      const id = { placementId: auto.placementId, siteIdx: auto.siteIdx };
      const cases: [Record<string, unknown>, string[]][] = [
        [{ siteIdx: auto.siteIdx }, ['/placementId']],
        [{ placementId: auto.placementId }, ['/siteIdx']],
        [{ ...id, placementId: Number(auto.placementId) }, ['/placementId']],
        [{ ...id, placementId: '0' }, ['/placementId']],
        [{ ...id, placementId: '007' }, ['/placementId']],
        [{ ...id, placementId: '1234567890123456' }, ['/placementId']],
        [{ ...id, siteIdx: 0 }, ['/siteIdx']],
        [{ ...id, siteIdx: '1' }, ['/siteIdx']],
        [{ ...id, placementName: '' }, ['/placementName']],
        [{ ...id, placementName: ' ' }, ['/placementName']],
        [{ ...id, siteName: 'x'.repeat(201) }, ['/siteName']],
        [{ ...id, dimension: '300X250' }, ['/dimension']],
        [{ ...id, adServer: 'nope' }, ['/adServer']],
        [{ ...id, unknownParam: true }, ['/unknownParam']],
      ];
      for (const name of ['adChoices', 'ccpa', 'embeddable', 'gdprMacro', 'mraid', 'noScriptTag', 'privacy']) {
        cases.push([{ ...id, [name]: 'true' }, [`/${name}`]], [{ ...id, [name]: 1 }, [`/${name}`]]);
      }
      for (const name of ['expansionUnit', 'gdprConsentMacro', 'tagType']) {
        cases.push([{ ...id, [name]: 'x'.repeat(201) }, [`/${name}`]], [{ ...id, [name]: true }, [`/${name}`]]);
      }
      for (const [body, pointers] of cases) {
        expect([body, refusedAt(await http('PATCH', path, { key: fullKey, json: body }))]).toEqual([body, pointers]);
      }
      expect(ok(await bulk(accountA, p.mediaPlanId, p.campaign)).body.adServers[0].placements[0]).toEqual(auto);
    });

    it('requires MediaPlan_Edit', async () => {
      const p = await planIn(accountA, ['300x250']);
      const [auto] = p.placements;
      const result = await patch(accountA, p.mediaPlanId, { placementId: auto.placementId, siteIdx: auto.siteIdx, mraid: true }, keyWithout('MediaPlan_Edit'));
      expectProblem(result, 403, 'PERMISSION_DENIED');
      expect(result.body.requiredPermission).toBe('MediaPlan_Edit');
    });
  });
});
