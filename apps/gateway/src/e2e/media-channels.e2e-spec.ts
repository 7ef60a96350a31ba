import { FREE_FORM_JSON_MAX_DEPTH } from '@contracts/domain';
import type { paths } from '@contracts/api';
import { admin, apiClient, E2eSystem, exchange, expectProblem, Http, httpClient, JsonBody, startE2eSystem } from './e2e-system';

jest.setTimeout(120_000);

// Documented operations go through the typed client, so a renamed path or field fails type-checking;
// the untyped `http` is left for malformed requests, undocumented paths and followed page links.
type Ok<Path extends keyof paths> = paths[Path]['get'] extends { responses: { 200: { content: { 'application/json': infer B } } } } ? B : never;
type ChannelList = Ok<'/v2/org/{orgId}/retail-media-channels'>;
type CampaignList = Ok<'/v2/accounts/{accountId}/retail-campaigns'>;
type ChannelBody = JsonBody<'createMediaChannel'>;
type CampaignStatus = NonNullable<JsonBody<'updateRetailCampaign'>['status']>;
/** The document lists offset and limit as required, so typed calls send both; the defaults are tested untyped. */
type PageQuery = { offset?: number; limit?: number };
const page = (query: PageQuery) => ({ offset: 0, limit: 25, ...query });

const validChannel = (name: string, overrides: Partial<ChannelBody> = {}): ChannelBody => ({
  name,
  adServerId: 'gam',
  type: 'Off-site',
  activationConfiguration: { tagGeneration: true, creativeGeneration: false },
  additionalConfiguration: { networkCode: '1234', sizes: ['300x250'] },
  ...overrides,
});
/** A channel body with deliberately wrong members, sent untyped. */
const looseChannel = (name: string, overrides: Record<string, unknown>): unknown => ({ ...validChannel(name), ...overrides });

describe('media channels over HTTP (gateway -> channels-plans -> MariaDB)', () => {
  let system: E2eSystem;
  let http: Http;
  let orgId: string;
  let otherOrgId: string;
  let accountA: number;
  let accountB: number;
  let otherAccount: number;
  let fullKey: string;
  let channelKey: string;
  let campaignsOnlyKey: string;
  let restrictedKey: string;
  let otherOrgKey: string;

  const channelsPath = () => `/v2/org/${orgId}/retail-media-channels`;
  const api = (key: string) => apiClient(http, { apiKey: key });
  const create = (body: ChannelBody, key = fullKey) => exchange(api(key).POST('/v2/org/{orgId}/retail-media-channels', { params: { path: { orgId } }, body }));
  const createUntyped = (body: unknown, key = fullKey) => http<{ idx: number; message: string }>('POST', channelsPath(), { key, json: body });
  const list = (query: PageQuery = {}, key = fullKey, org = orgId) =>
    exchange(api(key).GET('/v2/org/{orgId}/retail-media-channels', { params: { path: { orgId: org }, query: page(query) } }));
  const getChannel = (idx: number, key = fullKey, org = orgId) =>
    exchange(api(key).GET('/v2/org/{orgId}/retail-media-channels/{mediaChannelIdx}', { params: { path: { orgId: org, mediaChannelIdx: idx } } }));
  const updateChannel = (idx: number, body: JsonBody<'updateMediaChannel'>, key = fullKey) =>
    exchange(api(key).PUT('/v2/org/{orgId}/retail-media-channels/{mediaChannelIdx}', { params: { path: { orgId, mediaChannelIdx: idx } }, body }));
  const deleteChannel = (idx: number, key = fullKey, org = orgId) =>
    exchange(api(key).DELETE('/v2/org/{orgId}/retail-media-channels/{mediaChannelIdx}', { params: { path: { orgId: org, mediaChannelIdx: idx } } }));
  const templateList = (query: PageQuery = {}, key = fullKey, account = accountA, campaign = campaignId) =>
    exchange(
      api(key).GET('/v2/accounts/{accountId}/template-campaigns/{templateCampaignIdx}/retail-media-channels', {
        params: { path: { accountId: account, templateCampaignIdx: campaign }, query: page(query) },
      }),
    );
  const createCampaign = (account: number, body: JsonBody<'createRetailCampaign'>, key = fullKey) =>
    exchange(api(key).POST('/v2/accounts/{accountId}/retail-campaigns', { params: { path: { accountId: account } }, body }));
  const getCampaign = (account: number, idx: number, key = fullKey) =>
    exchange(
      api(key).GET('/v2/accounts/{accountId}/retail-campaigns/{retailCampaignIdx}', { params: { path: { accountId: account, retailCampaignIdx: idx } } }),
    );
  const patchCampaign = (account: number, idx: number, body: JsonBody<'updateRetailCampaign'>, key = fullKey) =>
    exchange(
      api(key).PATCH('/v2/accounts/{accountId}/retail-campaigns/{retailCampaignIdx}', {
        params: { path: { accountId: account, retailCampaignIdx: idx } },
        body,
      }),
    );
  const adServerConnection = (adServerId: string, key = fullKey, org = orgId) =>
    exchange(api(key).GET('/v2/org/{orgId}/retail-media-channel/{adServerId}', { params: { path: { orgId: org, adServerId } } }));
  const totalChannels = async () => (await list()).body.total;
  // Set by the template-campaign tests' beforeAll; templateList defaults to it.
  let campaignId = 0;

  beforeAll(async () => {
    system = await startE2eSystem('mc');
    http = httpClient(system.baseUrl);
    const a = admin(http);
    orgId = await a.createOrg({ name: 'Acme Retail', isRetailer: true, dimensionWhitelist: ['300x250', '728x90'] });
    accountA = await a.createAccount(orgId, 'Acme US');
    accountB = await a.createAccount(orgId, 'Acme EU');
    otherOrgId = await a.createOrg({ name: 'Brand Co', isRetailer: false });
    otherAccount = await a.createAccount(otherOrgId, 'Brand US');
    fullKey = (await a.createKey({ orgId, permissions: ['*'] })).apiKey;
    channelKey = (await a.createKey({ orgId, permissions: ['MediaChannel_All'] })).apiKey;
    campaignsOnlyKey = (await a.createKey({ orgId, permissions: ['RetailCampaigns_View', 'RetailCampaigns_Edit'] })).apiKey;
    restrictedKey = (await a.createKey({ orgId, permissions: ['*'], accountIds: [accountA] })).apiKey;
    otherOrgKey = (await a.createKey({ orgId: otherOrgId, permissions: ['*'] })).apiKey;
  });

  afterAll(async () => {
    // Both processes shut down gracefully on SIGTERM (not-ready, drain, close) and exit 0.
    expect(await system?.stop()).toEqual([0, 0]);
  });

  describe('identity', () => {
    it('answers 401 with WWW-Authenticate when no key is sent', async () => {
      const result = await list({}, '');
      expectProblem(result, 401, 'AUTHENTICATION_REQUIRED');
      expect(result.headers.get('www-authenticate')).toMatch(/^Bearer/);
    });

    it('answers 401 for a malformed or unknown key', async () => {
      expectProblem(await list({}, 'not-a-key'), 401, 'API_KEY_INVALID');
      expectProblem(await list({}, fullKey.slice(0, -2) + 'xx'), 401, 'API_KEY_INVALID');
    });

    it('accepts the key as X-Api-Key too', async () => {
      const result = await http('GET', channelsPath(), { headers: { 'x-api-key': fullKey } });
      expect(result.status).toBe(200);
    });

    it('stops a revoked key at once', async () => {
      const a = admin(http);
      const key = await a.createKey({ orgId, permissions: ['*'] });
      expect((await list({}, key.apiKey)).status).toBe(200);
      expect((await a.revokeKey(key.keyId)).status).toBe(204);
      expectProblem(await list({}, key.apiKey), 401, 'API_KEY_INVALID');
      expectProblem(await a.revokeKey(key.keyId), 404, 'API_KEY_NOT_FOUND');
    });

    it('hides another tenant behind the same 404 as a missing org or account', async () => {
      const foreign = await list({}, fullKey, otherOrgId);
      const missing = await list({}, fullKey, 'no-such-org');
      expectProblem(foreign, 404, 'ORG_NOT_FOUND');
      expect({ ...foreign.body, detail: '', instance: '', requestId: '' }).toEqual({ ...missing.body, detail: '', instance: '', requestId: '' });

      const foreignAccount = await templateList({}, fullKey, otherAccount, 1);
      const outOfKeyScope = await templateList({}, restrictedKey, accountB, 1);
      const missingAccount = await templateList({}, fullKey, 99999999, 1);
      for (const result of [foreignAccount, outOfKeyScope, missingAccount]) expectProblem(result, 404, 'ACCOUNT_NOT_FOUND');
    });

    it("does not reveal another org's channel through the caller's own org", async () => {
      const { body } = await create(validChannel('Private channel'));
      const result = await getChannel(body.idx, otherOrgKey, otherOrgId);
      expectProblem(result, 404, 'MEDIA_CHANNEL_NOT_FOUND');
      expectProblem(await deleteChannel(body.idx, otherOrgKey, otherOrgId), 404, 'MEDIA_CHANNEL_NOT_FOUND');
      expect((await getChannel(body.idx)).status).toBe(200);
    });

    it('answers 403 naming the permission a key lacks', async () => {
      const result = await create(validChannel('Nope'), campaignsOnlyKey);
      expectProblem(result, 403, 'PERMISSION_DENIED');
      expect(result.body.requiredPermission).toBe('MediaChannel_All');
      const view = await templateList({}, campaignsOnlyKey, accountA, 1);
      expectProblem(view, 403, 'PERMISSION_DENIED');
      expect(view.body.requiredPermission).toBe('MediaChannel_View');
    });
  });

  describe('create (createMediaChannel) and read (getMediaChannel)', () => {
    it('creates a channel with every field and reads it back', async () => {
      const created = await create(validChannel('Display network'), channelKey);
      expect(created.status).toBe(201);
      expect(created.body).toEqual({ idx: expect.any(Number), message: expect.any(String) });
      expect(created.headers.get('location')).toBe(`${channelsPath()}/${created.body.idx}`);

      const read = await getChannel(created.body.idx, channelKey);
      expect(read.status).toBe(200);
      expect(read.body.mediaChannelInfo).toEqual({
        idx: created.body.idx,
        name: 'Display network',
        adServerId: 'gam',
        adServerName: 'Google Ad Manager',
        type: 'Off-site',
        status: 'Active',
        logoUrl: expect.stringMatching(/^https?:\/\/.+\/static\/ad-servers\/gam\.svg$/),
        activationConfiguration: { tagGeneration: true, creativeGeneration: false },
        additionalConfiguration: { networkCode: '1234', sizes: ['300x250'] },
        updatedTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      });
    });

    it('stores no additionalConfiguration as null', async () => {
      const { body } = await create({ ...validChannel('Bare'), additionalConfiguration: undefined });
      const read = await getChannel(body.idx);
      expect(read.body.mediaChannelInfo.additionalConfiguration).toBeNull();
    });

    it.each<ChannelBody['type']>(['On-site', 'Off-site', 'Social', 'In-store/DOOH', 'Hybrid'])('accepts type %s', async (type) => {
      expect((await create(validChannel(`Type ${type}`, { type }))).status).toBe(201);
    });

    const invalidBodies: [string, unknown, string, string][] = [
      ['name missing', { ...validChannel('x'), name: undefined }, '/name', 'REQUIRED'],
      ['name empty', validChannel(''), '/name', 'TOO_SHORT'],
      ['name too long', validChannel('n'.repeat(201)), '/name', 'TOO_LONG'],
      ['name not a string', looseChannel('x', { name: 42 }), '/name', 'INVALID_TYPE'],
      ['adServerId missing', { ...validChannel('x'), adServerId: undefined }, '/adServerId', 'REQUIRED'],
      ['type missing', { ...validChannel('x'), type: undefined }, '/type', 'REQUIRED'],
      ['type outside the enum', looseChannel('x', { type: 'Offsite' }), '/type', 'NOT_ALLOWED'],
      ['activationConfiguration missing', { ...validChannel('x'), activationConfiguration: undefined }, '/activationConfiguration', 'REQUIRED'],
      [
        'tagGeneration missing',
        looseChannel('x', { activationConfiguration: { creativeGeneration: true } }),
        '/activationConfiguration/tagGeneration',
        'REQUIRED',
      ],
      [
        'creativeGeneration missing',
        looseChannel('x', { activationConfiguration: { tagGeneration: true } }),
        '/activationConfiguration/creativeGeneration',
        'REQUIRED',
      ],
      [
        'tagGeneration not boolean',
        looseChannel('x', { activationConfiguration: { tagGeneration: 'yes', creativeGeneration: true } }),
        '/activationConfiguration/tagGeneration',
        'INVALID_TYPE',
      ],
      ['additionalConfiguration not an object', looseChannel('x', { additionalConfiguration: '{"a":1}' }), '/additionalConfiguration', 'INVALID_TYPE'],
      ['unknown field', looseChannel('x', { adServerID: 'gam' }), '/adServerID', 'UNKNOWN_FIELD'],
      ['body not an object', [1, 2], '', 'INVALID_TYPE'],
    ];

    it.each(invalidBodies)('refuses %s with a field error and changes nothing', async (_case, body, pointer, code) => {
      const before = await totalChannels();
      const result = await createUntyped(body);
      expectProblem(result, 400, 'VALIDATION_FAILED');
      expect(result.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ pointer, code, detail: expect.any(String) })]));
      expect(await totalChannels()).toBe(before);
    });

    it('reports every invalid field at once', async () => {
      const result = await createUntyped({ name: '', type: 'Bad', activationConfiguration: {} });
      const pointers = (result.body.errors as { pointer: string }[]).map((e) => e.pointer).sort();
      expect(pointers).toEqual(['/activationConfiguration/creativeGeneration', '/activationConfiguration/tagGeneration', '/adServerId', '/name', '/type']);
    });

    it('refuses an ad server outside the catalog', async () => {
      const result = await create(validChannel('Unknown server', { adServerId: 'nope' }));
      expectProblem(result, 400, 'VALIDATION_FAILED');
      expect(result.body.errors).toEqual([expect.objectContaining({ pointer: '/adServerId', code: 'UNKNOWN_AD_SERVER' })]);
    });

    it('refuses an additionalConfiguration over 16 KiB', async () => {
      const result = await create(validChannel('Huge', { additionalConfiguration: { blob: 'x'.repeat(17 * 1024) } }));
      expectProblem(result, 400, 'VALIDATION_FAILED');
      expect(result.body.errors).toEqual([expect.objectContaining({ pointer: '/additionalConfiguration', code: 'TOO_LARGE' })]);
    });

    it('refuses a duplicate name in the org with 409', async () => {
      expect((await create(validChannel('Twin'))).status).toBe(201);
      const before = await totalChannels();
      expectProblem(await create(validChannel(' Twin ')), 409, 'MEDIA_CHANNEL_NAME_TAKEN');
      expect(await totalChannels()).toBe(before);
    });

    it('refuses malformed JSON, a non-JSON body and an oversized body', async () => {
      expectProblem(await http('POST', channelsPath(), { key: fullKey, raw: '{"name": ' }), 400, 'MALFORMED_JSON');
      const notJson = await http('POST', channelsPath(), { key: fullKey, raw: 'name=x', contentType: 'application/x-www-form-urlencoded' });
      expectProblem(notJson, 415, 'UNSUPPORTED_MEDIA_TYPE');
      expect(notJson.body.errors).toEqual([expect.objectContaining({ header: 'content-type' })]);
      const huge = await http('POST', channelsPath(), {
        key: fullKey,
        raw: JSON.stringify(validChannel('x', { additionalConfiguration: { blob: 'x'.repeat(70_000) } })),
      });
      expectProblem(huge, 413, 'PAYLOAD_TOO_LARGE');
    });
  });

  describe('update (updateMediaChannel) and delete (deleteMediaChannel)', () => {
    let idx: number;
    beforeAll(async () => {
      idx = (await create(validChannel('Updatable', { adServerId: 'meta', type: 'Social' }))).body.idx;
    });
    const read = async () => (await getChannel(idx)).body.mediaChannelInfo;

    it('changes only the fields sent', async () => {
      const before = await read();
      const result = await updateChannel(idx, { status: 'Inactive', activationConfiguration: { creativeGeneration: true } });
      expect(result.status).toBe(200);
      expect(result.body).toEqual({ message: expect.any(String) });
      const after = await read();
      expect(after).toMatchObject({
        status: 'Inactive',
        activationConfiguration: { tagGeneration: true, creativeGeneration: true },
        additionalConfiguration: before.additionalConfiguration,
        name: 'Updatable',
      });
      expect(Date.parse(after.updatedTime as string)).toBeGreaterThanOrEqual(Date.parse(before.updatedTime as string));
    });

    it('replaces additionalConfiguration as a whole', async () => {
      await updateChannel(idx, { additionalConfiguration: { pixelId: 'p-1' } });
      expect((await read()).additionalConfiguration).toEqual({ pixelId: 'p-1' });
    });

    it('refuses an invalid update and changes nothing', async () => {
      const before = await read();
      const result = await http('PUT', `${channelsPath()}/${idx}`, {
        key: fullKey,
        json: { status: 'Paused', activationConfiguration: { tagGeneration: 1 }, name: 'renamed' },
      });
      expectProblem(result, 400, 'VALIDATION_FAILED');
      const pointers = (result.body.errors as { pointer: string }[]).map((e) => e.pointer).sort();
      expect(pointers).toEqual(['/activationConfiguration/tagGeneration', '/name', '/status']);
      expect(await read()).toEqual(before);
    });

    it('answers 404 for an unknown idx and 400 for a non-integer one', async () => {
      expectProblem(await updateChannel(99999999, { status: 'Active' }), 404, 'MEDIA_CHANNEL_NOT_FOUND');
      const bad = await http('GET', `${channelsPath()}/abc`, { key: fullKey });
      expectProblem(bad, 400, 'VALIDATION_FAILED');
      expect(bad.body.errors).toEqual([expect.objectContaining({ parameter: 'mediaChannelIdx', code: 'INVALID_TYPE' })]);
    });

    it('deletes a channel: gone from reads and lists, name free again, second delete 404', async () => {
      const { body } = await create(validChannel('Short lived'));
      const deleted = await deleteChannel(body.idx);
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ message: expect.any(String) });
      expectProblem(await getChannel(body.idx), 404, 'MEDIA_CHANNEL_NOT_FOUND');
      expectProblem(await deleteChannel(body.idx), 404, 'MEDIA_CHANNEL_NOT_FOUND');
      const all = await list({ limit: 100 });
      expect(all.body.mediaChannels.map((c) => c.idx)).not.toContain(body.idx);
      expect((await create(validChannel('Short lived'))).status).toBe(201);
    });
  });

  describe('org list (listOrgMediaChannels)', () => {
    it('pages with total and absolute next/previous links followed to the end', async () => {
      for (let i = 0; i < 7; i++) expect((await create(validChannel(`Paged ${i}`))).status).toBe(201);
      const first = await list({ limit: 3 });
      expect(first.status).toBe(200);
      const total = first.body.total;
      expect(total).toBeGreaterThanOrEqual(7);
      expect(first.body.previous).toBeNull();

      const seen: number[] = [];
      let page: { status: number; body: ChannelList } = first;
      let pages = 0;
      for (;;) {
        pages++;
        expect(page.body.mediaChannels.length).toBeLessThanOrEqual(3);
        for (const channel of page.body.mediaChannels) {
          expect(typeof channel.additionalConfiguration === 'string' || channel.additionalConfiguration === null).toBe(true);
          expect(Object.keys(channel)).toEqual(
            expect.arrayContaining(['idx', 'name', 'adServerId', 'adServerName', 'status', 'type', 'logoUrl', 'additionalConfiguration']),
          );
          seen.push(channel.idx as number);
        }
        if (!page.body.next) break;
        expect(page.body.next).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v2\/org\/.+\/retail-media-channels\?.*offset=\d+.*limit=3/);
        page = await http<ChannelList>('GET', page.body.next, { key: fullKey });
        expect(page.status).toBe(200);
      }
      expect(pages).toBe(Math.ceil(total / 3));
      expect(new Set(seen).size).toBe(total);
      expect(seen).toEqual([...seen].sort((a, b) => a - b));

      const back = await http<ChannelList>('GET', page.body.previous as string, { key: fullKey });
      expect(back.status).toBe(200);
      expect(back.body.mediaChannels.map((c) => c.idx)).toEqual(seen.slice(-(page.body.mediaChannels.length + 3), -page.body.mediaChannels.length));
    });

    it('answers a page past the end with no items, the right total and a previous link to the last page with items', async () => {
      const total = await totalChannels();
      expect(total).toBeGreaterThan(0);
      const result = await list({ offset: total + 50, limit: 10 });
      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({ mediaChannels: [], total, next: null });
      const last = Math.floor((total - 1) / 10) * 10;
      expect(result.body.previous).toMatch(new RegExp(`offset=${last}&limit=10$`));
      const back = await http<ChannelList>('GET', result.body.previous as string, { key: fullKey });
      expect(back.body.mediaChannels).toHaveLength(total - last);
    });

    it('parses the additionalConfiguration string back to the stored object', async () => {
      const { body } = await create(validChannel('Json string', { additionalConfiguration: { nested: { deep: [1, 2] } } }));
      const all = await list({ limit: 100 });
      const channel = all.body.mediaChannels.find((c) => c.idx === body.idx);
      expect(JSON.parse(channel?.additionalConfiguration as string)).toEqual({ nested: { deep: [1, 2] } });
    });

    it.each([
      ['?limit=101', 'limit', 'OUT_OF_RANGE'],
      ['?limit=0', 'limit', 'OUT_OF_RANGE'],
      ['?offset=-1', 'offset', 'OUT_OF_RANGE'],
      ['?limit=ten', 'limit', 'INVALID_TYPE'],
      ['?page=2', 'page', 'UNKNOWN_FIELD'],
    ])('refuses %s naming the parameter', async (query, parameter, code) => {
      const result = await http('GET', `${channelsPath()}${query}`, { key: fullKey });
      expectProblem(result, 400, 'VALIDATION_FAILED');
      expect(result.body.errors).toEqual([expect.objectContaining({ parameter, code })]);
    });

    it('defaults to offset 0 and limit 25', async () => {
      for (let i = 0; i < 20; i++) await create(validChannel(`Bulk ${i}`));
      const result = await http<ChannelList>('GET', channelsPath(), { key: fullKey });
      expect(result.body.mediaChannels).toHaveLength(25);
      expect(result.body.next).toMatch(/offset=25&limit=25/);
    });
  });

  describe('ad-server connection (getAdServerConnection) and catalog', () => {
    it('returns apiEndpoint and apiKey only for the on-site retail-media server', async () => {
      const onsite = await create(validChannel('On-site server', { adServerId: 'onsite-rm', type: 'On-site' }));
      expect(onsite.status).toBe(201);
      const result = await adServerConnection('onsite-rm');
      expect(result.status).toBe(200);
      expect(result.body).toEqual({ apiEndpoint: expect.stringContaining(`/orgs/${orgId}`), apiKey: expect.stringMatching(/^rmo_/) });
      expect(result.headers.get('cache-control')).toBe('no-store');
      const again = await adServerConnection('onsite-rm');
      expect(again.body).toEqual(result.body);

      // The key is a secret of this endpoint only: never in lists or reads.
      const everything = JSON.stringify((await list({ limit: 100 })).body) + JSON.stringify((await getChannel(onsite.body.idx)).body);
      expect(everything).not.toContain(result.body.apiKey as string);
    });

    it('returns an empty object for every other ad server', async () => {
      for (const adServerId of ['gam', 'meta', 'vistar']) {
        const result = await adServerConnection(adServerId);
        expect({ adServerId, status: result.status, body: result.body }).toEqual({ adServerId, status: 200, body: {} });
      }
    });

    it('answers 404 for an ad server outside the catalog or an org without an on-site channel', async () => {
      expectProblem(await adServerConnection('nope'), 404, 'AD_SERVER_NOT_FOUND');
      expectProblem(await adServerConnection('onsite-rm', otherOrgKey, otherOrgId), 404, 'MEDIA_CHANNEL_NOT_FOUND');
    });

    it('lists the seeded catalog with every kind', async () => {
      const result = await exchange(api(fullKey).GET('/v2/ad-servers'));
      expect(result.status).toBe(200);
      expect(new Set(result.body.adServers.map((a) => a.kind))).toEqual(new Set(['onsite-retail-media', 'display', 'video', 'social', 'dooh']));
      const logo = await fetch(`${system.baseUrl}/static/ad-servers/gam.svg`);
      expect(logo.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    });
  });

  describe('template-campaign list (listTemplateCampaignMediaChannels)', () => {
    let usedIdx: number;
    let disabledIdx: number;

    beforeAll(async () => {
      const campaign = await createCampaign(accountA, { campaignName: 'Holiday', templateIdx: 3 });
      expect(campaign.status).toBe(201);
      campaignId = campaign.body.retailCampaignId;
      usedIdx = (await create(validChannel('Used by campaign'))).body.idx;
      disabledIdx = (await create(validChannel('Disabled one'))).body.idx;
      await updateChannel(disabledIdx, { status: 'Inactive' });
      // Media plans have no HTTP operation yet; the campaign's plan on this channel is put in place directly.
      await system.sql('channels_plans', 'INSERT INTO media_plans (account_id, retail_campaign_id, media_channel_idx, media_plan_name) VALUES (?, ?, ?, ?)', [
        accountA,
        campaignId,
        usedIdx,
        'Plan 1',
      ]);
    });

    it('lists the org channels with count, isUtilized and Enabled/Disabled', async () => {
      const result = await templateList({ limit: 100 });
      expect(result.status).toBe(200);
      expect(result.body.count).toBe(await totalChannels());
      const byIdx = new Map(result.body.mediaChannels.map((c) => [c.idx, c]));
      expect(byIdx.get(usedIdx)).toMatchObject({ isUtilized: true, status: 'Enabled' });
      expect(byIdx.get(disabledIdx)).toMatchObject({ isUtilized: false, status: 'Disabled' });
      expect(result.body.mediaChannels.every((c) => ['Enabled', 'Disabled'].includes(c.status as string))).toBe(true);
    });

    it('keeps a deleted channel the campaign uses, as Deleted', async () => {
      await deleteChannel(usedIdx);
      const result = await templateList({ limit: 100 });
      expect(result.body.mediaChannels.find((c) => c.idx === usedIdx)).toMatchObject({ status: 'Deleted', isUtilized: true });
      expect(result.body.count).toBe((await totalChannels()) + 1);
    });

    it('pages with count and links followed to the end', async () => {
      const first = await templateList({ limit: 4 });
      let page: { status: number; body: typeof first.body } = first;
      let seen = 0;
      for (;;) {
        seen += page.body.mediaChannels.length;
        if (!page.body.next) break;
        page = await http('GET', page.body.next, { key: fullKey });
        expect(page.status).toBe(200);
      }
      expect(seen).toBe(first.body.count);
    });

    it('accepts a key holding MediaChannel_All (the family grant)', async () => {
      expect((await templateList({}, channelKey)).status).toBe(200);
    });

    it('refuses an org that is not a retailer', async () => {
      const campaign = await createCampaign(otherAccount, { campaignName: 'Brand push' }, otherOrgKey);
      const result = await templateList({}, otherOrgKey, otherAccount, campaign.body.retailCampaignId);
      expectProblem(result, 403, 'ORG_NOT_RETAILER');
    });

    it("answers 404 for a missing campaign and for another account's campaign", async () => {
      expectProblem(await templateList({}, fullKey, accountA, 99999999), 404, 'RETAIL_CAMPAIGN_NOT_FOUND');
      expectProblem(await templateList({}, fullKey, accountB, campaignId), 404, 'RETAIL_CAMPAIGN_NOT_FOUND');
    });
  });

  describe('retail campaigns (extension)', () => {
    const campaignsPath = (account: number) => `/v2/accounts/${account}/retail-campaigns`;
    const listCampaigns = (account: number, query: PageQuery = {}) =>
      exchange(api(fullKey).GET('/v2/accounts/{accountId}/retail-campaigns', { params: { path: { accountId: account }, query: page(query) } }));

    it('creates in DRAFT, reads, renames and activates a campaign', async () => {
      const created = await createCampaign(accountB, { campaignName: 'Spring', isAdGroupCampaign: true });
      expect(created.status).toBe(201);
      const id = created.body.retailCampaignId;
      const read = await getCampaign(accountB, id);
      expect(read.body).toEqual({
        retailCampaignId: id,
        campaignName: 'Spring',
        templateIdx: null,
        isAdGroupCampaign: true,
        isSbt: false,
        status: 'DRAFT',
        createdTime: expect.any(String),
        updatedTime: expect.any(String),
      });
      expect((await patchCampaign(accountB, id, { campaignName: 'Spring sale', status: 'ACTIVE' })).status).toBe(200);
      expect((await getCampaign(accountB, id)).body).toMatchObject({ campaignName: 'Spring sale', status: 'ACTIVE' });
    });

    it('refuses bad campaign input and changes nothing', async () => {
      const { body } = await createCampaign(accountB, { campaignName: 'Steady' });
      const path = `${campaignsPath(accountB)}/${body.retailCampaignId}`;
      const patch = await http('PATCH', path, { key: fullKey, json: { status: 'LIVE' } });
      expectProblem(patch, 400, 'VALIDATION_FAILED');
      expect(patch.body.errors).toEqual([expect.objectContaining({ pointer: '/status', code: 'NOT_ALLOWED' })]);
      expectProblem(await patchCampaign(accountB, body.retailCampaignId, {}), 400, 'VALIDATION_FAILED');
      const create = await createCampaign(accountB, { campaignName: '', templateIdx: 0 });
      expect((create.body.errors as { pointer: string }[]).map((e) => e.pointer).sort()).toEqual(['/campaignName', '/templateIdx']);
      expect((await getCampaign(accountB, body.retailCampaignId)).body).toMatchObject({ campaignName: 'Steady', status: 'DRAFT' });
    });

    it('moves a campaign only along its lifecycle, answering 409 with both statuses otherwise', async () => {
      const { body } = await createCampaign(accountB, { campaignName: 'Lifecycle' });
      const id = body.retailCampaignId;
      const move = (status: CampaignStatus) => patchCampaign(accountB, id, { status });
      const refused = async (status: CampaignStatus, current: CampaignStatus) => {
        const result = await move(status);
        expectProblem(result, 409, 'RETAIL_CAMPAIGN_STATUS_TRANSITION_NOT_ALLOWED');
        expect(result.body).toMatchObject({ detail: expect.stringContaining(current) });
        expect(result.body).toMatchObject({ detail: expect.stringContaining(status) });
        expect((await getCampaign(accountB, id)).body).toMatchObject({ status: current });
      };
      await refused('PAUSED', 'DRAFT');
      await refused('ARCHIVED', 'DRAFT');
      for (const status of ['ACTIVE', 'PAUSED', 'ACTIVE', 'ARCHIVED'] as const) expect((await move(status)).status).toBe(200);
      await refused('ACTIVE', 'ARCHIVED');
      await refused('DRAFT', 'ARCHIVED');
    });

    it("lists an account's campaigns with links followed to the end, and hides other accounts'", async () => {
      for (let i = 0; i < 4; i++) await createCampaign(accountB, { campaignName: `Listed ${i}` });
      let page: { body: CampaignList } = await listCampaigns(accountB, { limit: 2 });
      const total = page.body.total;
      const seen: number[] = [];
      for (;;) {
        seen.push(...page.body.retailCampaigns.map((c) => c.retailCampaignId));
        if (!page.body.next) break;
        page = await http<CampaignList>('GET', page.body.next, { key: fullKey });
      }
      expect(new Set(seen).size).toBe(total);
      expect(total).toBeGreaterThanOrEqual(6);
      const theirs = seen[0];
      expectProblem(await getCampaign(accountA, theirs), 404, 'RETAIL_CAMPAIGN_NOT_FOUND');
      expectProblem(await getCampaign(accountB, theirs, restrictedKey), 404, 'ACCOUNT_NOT_FOUND');
      const forbidden = await createCampaign(accountB, { campaignName: 'x' }, channelKey);
      expectProblem(forbidden, 403, 'PERMISSION_DENIED');
      expect(forbidden.body.requiredPermission).toBe('RetailCampaigns_Edit');
    });
  });

  describe('request bounds', () => {
    const nested = (depth: number) => {
      let value: Record<string, unknown> = { leaf: 1 };
      for (let i = 1; i < depth; i++) value = { a: value };
      return value;
    };
    const badParameter = async (path: string, parameter: string, code: string) => {
      const result = await http('GET', path, { key: fullKey });
      expectProblem(result, 400, 'VALIDATION_FAILED');
      expect(result.body.errors).toEqual([expect.objectContaining({ parameter, code })]);
    };

    it('refuses an offset past int32 written as an exponent', async () => {
      await badParameter(`${channelsPath()}?offset=1e99`, 'offset', 'INVALID_FORMAT');
      await badParameter(`${channelsPath()}?offset=2147483648`, 'offset', 'OUT_OF_RANGE');
    });

    it('refuses an idx past the int64 the service reads', async () => {
      await badParameter(`${channelsPath()}/99999999999999999999`, 'mediaChannelIdx', 'OUT_OF_RANGE');
    });

    it('refuses exponent and hex spellings of an idx instead of reading them', async () => {
      const { body } = await create(validChannel('Spelled'));
      expect(body.idx).toBeGreaterThan(0);
      await badParameter(`${channelsPath()}/1e3`, 'mediaChannelIdx', 'INVALID_FORMAT');
      await badParameter(`${channelsPath()}/0x${body.idx.toString(16)}`, 'mediaChannelIdx', 'INVALID_FORMAT');
    });

    it('refuses a query parameter given twice', async () => {
      await badParameter(`${channelsPath()}?limit=5&limit=6`, 'limit', 'DUPLICATE_PARAMETER');
    });

    it('refuses an additionalConfiguration nested 3,000 deep and stores nothing', async () => {
      const before = await totalChannels();
      const result = await create(validChannel('Deep', { additionalConfiguration: nested(3000) }));
      expectProblem(result, 400, 'VALIDATION_FAILED');
      expect(result.body.errors).toEqual([expect.objectContaining({ pointer: '/additionalConfiguration', code: 'TOO_DEEP' })]);
      expect(await totalChannels()).toBe(before);
      expect((await create(validChannel('Deep enough', { additionalConfiguration: nested(FREE_FORM_JSON_MAX_DEPTH) }))).status).toBe(201);
    });
  });

  describe('edge', () => {
    it('serves health, readiness, OpenAPI and docs', async () => {
      expect((await http('GET', '/healthz')).body).toEqual({ status: 'alive' });
      expect((await http('GET', '/readyz')).body).toMatchObject({ status: 'ready', checks: { mysql: true, 'channels-plans': true } });
      const doc = await http<{ openapi: string; paths: Record<string, Record<string, Record<string, unknown>>> }>('GET', '/openapi.json');
      expect(doc.body.openapi).toBe('3.1.0');
      expect(doc.body.paths['/v2/org/{orgId}/retail-media-channels'].post['x-required-permission']).toBe('MediaChannel_All');
      expect(doc.body.paths['/v2/ad-servers'].get['x-extension']).toBe(true);
      const docs = await fetch(`${system.baseUrl}/docs/`);
      expect(docs.status).toBe(200);
      expect(await docs.text()).toContain('swagger-ui');
    });

    it('answers a known path with an unsupported method with 405 and Allow', async () => {
      const result = await http('PATCH', `${channelsPath()}/1`, { key: fullKey, json: { status: 'Active' } });
      expectProblem(result, 405, 'METHOD_NOT_ALLOWED');
      expect(result.headers.get('allow')).toBe('PUT, GET, DELETE');
    });

    it('answers unknown routes with problem+json 404 and sets security headers', async () => {
      const result = await http('GET', '/v2/unknown', { key: fullKey });
      expectProblem(result, 404, 'ROUTE_NOT_FOUND');
      expect(result.headers.get('x-content-type-options')).toBe('nosniff');
      const limited = await list({}, fullKey);
      expect(Number(limited.headers.get('ratelimit-limit'))).toBeGreaterThan(0);
      expect(Number(limited.headers.get('ratelimit-remaining'))).toBeLessThan(Number(limited.headers.get('ratelimit-limit')));
      expect(result.headers.get('x-request-id')).toBeTruthy();
      expect(result.headers.get('x-powered-by')).toBeNull();
    });

    it('guards the admin API with the admin token and validates it', async () => {
      const a = admin(http);
      expectProblem(await a.raw('POST', '/admin/v1/orgs', { name: 'x', isRetailer: true }, 'wrong-token'), 401, 'ADMIN_TOKEN_INVALID');
      expectProblem(
        await http('POST', '/admin/v1/orgs', { headers: { authorization: `Bearer ${fullKey}` }, json: { name: 'x', isRetailer: true } }),
        401,
        'ADMIN_TOKEN_INVALID',
      );
      const invalid = await a.raw('POST', '/admin/v1/orgs', { name: '', isRetailer: 'yes', dimensionWhitelist: ['300by250'] });
      expectProblem(invalid, 400, 'VALIDATION_FAILED');
      expect((invalid.body.errors as { pointer: string }[]).map((e) => e.pointer).sort()).toEqual(['/dimensionWhitelist/0', '/isRetailer', '/name']);
      expectProblem(await a.raw('POST', '/admin/v1/orgs', { orgId, name: 'dup', isRetailer: true }), 409, 'ORG_EXISTS');
      const badKey = await a.raw('POST', '/admin/v1/api-keys', { orgId, permissions: ['MediaChannel_Al'], accountIds: [otherAccount] });
      expectProblem(badKey, 400, 'VALIDATION_FAILED');
      expect(badKey.body.errors).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ pointer: '/permissions/0', code: 'UNKNOWN_PERMISSION' }),
          expect.objectContaining({ pointer: '/accountIds/0', code: 'UNKNOWN_ACCOUNT' }),
        ]),
      );
      expectProblem(await a.raw('POST', '/admin/v1/orgs/no-such-org/accounts', { name: 'x' }), 404, 'ORG_NOT_FOUND');
    });

    it('logs each request with its route template and counts it in Prometheus metrics', async () => {
      expect((await list({ limit: 2 })).status).toBe(200);
      const metrics = await (await fetch(system.metricsUrl)).text();
      const sample = new RegExp(
        `http_server_request_duration_seconds_count\\{method="GET",route="/v2/org/:orgId/retail-media-channels",status="200"\\} (\\d+)`,
      );
      expect(Number(sample.exec(metrics)?.[1] ?? 0)).toBeGreaterThan(0);
      expect(metrics).toMatch(/status="401"/);
      expect(metrics).not.toMatch(new RegExp(`route="[^"]*${orgId}`));
      const gateway = system.processes.find((p) => p.name === 'gateway');
      expect(gateway?.output()).toMatch(
        /"method":"GET","route":"\/v2\/org\/:orgId\/retail-media-channels","status":200,"durationMs":[\d.]+,"keyId":"[A-Za-z0-9]{16}"/,
      );
      expect(gateway?.output()).not.toMatch(/"route":"\/healthz"/);
    });

    it('never echoes an API key or admin token in any answer', async () => {
      const result = await list({}, fullKey, 'x');
      expect(result.text).not.toContain(fullKey);
      for (const proc of system.processes) expect(proc.output()).not.toContain(fullKey);
    });
  });
  // Last on purpose: it stops the backend.
  describe('when channels-plans goes away', () => {
    it('turns not-ready naming the failed check, and answers calls with 503 problems', async () => {
      // Read twice before the stop: the second answer comes from the gateway's response cache.
      for (let read = 0; read < 2; read += 1) expect((await list({ limit: 3 })).status).toBe(200);
      const backend = system.processes.find((p) => p.name === 'channels-plans');
      expect(await backend?.stop()).toBe(0);
      const ready = await http<{ checks: Record<string, boolean> }>('GET', '/readyz');
      expectProblem(ready, 503, 'NOT_READY');
      // Only the stopped backend fails; every other service of the registry still answers.
      expect(ready.body.checks).toEqual({
        accepting: true,
        mysql: true,
        nats: true,
        'channels-plans': false,
        'content-creative': true,
        'asset-sources': true,
        'storage-library': true,
        'tagging-trackers': true,
        templates: true,
      });
      expectProblem(await list({ limit: 4 }), 503, 'SERVICE_UNAVAILABLE');
      expectProblem(await getChannel(1), 503, 'SERVICE_UNAVAILABLE');
      // A cached page is still current: with its owner gone, nothing can change it.
      expect((await list({ limit: 3 })).status).toBe(200);
      expect((await http('GET', '/healthz')).status).toBe(200);
    });
  });
});
