import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { startEmbeddedS3, type EmbeddedS3 } from '@platform/s3';
import { parseFragment, type DefaultTreeAdapterMap } from 'parse5';
import { admin, E2eSystem, expectProblem, Http, httpClient, startE2eSystem } from './e2e-system';

jest.setTimeout(180_000);

type Element = DefaultTreeAdapterMap['element'];
type Node = DefaultTreeAdapterMap['childNode'];

/** Every element of a tag as a browser without scripting parses it (noscript content is markup). */
function elements(html: string): Element[] {
  const found: Element[] = [];
  const walk = (nodes: Node[]) => {
    for (const node of nodes) {
      if ('tagName' in node) {
        found.push(node);
        walk(node.childNodes);
      }
    }
  };
  walk(parseFragment(html, { scriptingEnabled: false }).childNodes as Node[]);
  return found;
}
const attr = (element: Element, name: string) => element.attrs.find((a) => a.name === name)?.value;
/** Query pairs as the ad server sees them before it expands its macros (values as written). */
const rawValues = (url: URL, name: string) =>
  url.search
    .slice(1)
    .split('&')
    .map((pair) => [decodeURIComponent(pair.slice(0, pair.indexOf('='))), pair.slice(pair.indexOf('=') + 1)])
    .filter(([n]) => n === name)
    .map(([, v]) => v);

const ALL_PERMISSIONS_USED = [
  'MediaChannel_All',
  'RetailCampaigns_View',
  'RetailCampaigns_Edit',
  'Campaigns_List',
  'MediaPlan_View',
  'AdServers_View',
  'Tags_View',
  'Tags_Edit',
  'MediaPlan_Tags_Download',
  'Trackers_View',
  'Trackers_Edit',
];

describe('tag variable maps, single tags, the tag CSV and trackers over HTTP (gateway -> tagging-trackers -> channels-plans)', () => {
  let system: E2eSystem;
  let s3: EmbeddedS3 | undefined;
  let s3Dir: string | undefined;
  let http: Http;
  let orgId: string;
  let accountA: number;
  let accountB: number;
  let otherAccount: number;
  let fullKey: string;
  let otherOrgKey: string;
  const keysWithout = new Map<string, string>();
  const keyWithout = (permission: string) => keysWithout.get(permission) as string;

  const createCampaign = async (account: number, campaignName = 'Tagging campaign') => {
    const result = await http('POST', `/v2/accounts/${account}/retail-campaigns`, { key: fullKey, json: { campaignName } });
    if (result.status !== 201) throw new Error(result.text);
    return result.body.retailCampaignId as number;
  };
  const activate = async (account: number, campaign: number) => {
    const result = await http('PATCH', `/v2/accounts/${account}/retail-campaigns/${campaign}`, { key: fullKey, json: { status: 'ACTIVE' } });
    if (result.status !== 200) throw new Error(result.text);
  };
  const createChannel = async (adServerId: string, name: string) => {
    const result = await http('POST', `/v2/org/${orgId}/retail-media-channels`, {
      key: fullKey,
      json: { name, adServerId, type: 'Off-site', activationConfiguration: { tagGeneration: true, creativeGeneration: false } },
    });
    if (result.status !== 201) throw new Error(result.text);
    return result.body.idx as number;
  };
  /** An auto plan of the campaign on the channel; its placements by dimension. */
  const createPlan = async (account: number, campaign: number, channel: number, dimensions: string[]) => {
    const created = await http('POST', `/v2/accounts/${account}/media-plans/auto`, {
      key: fullKey,
      json: { dimensions, retailCampaignId: campaign, mediaChannelIdx: channel },
    });
    if (created.status !== 201) throw new Error(created.text);
    const mediaPlanId = created.body.mediaPlanId as number;
    return { mediaPlanId, placements: await placementsOf(account, mediaPlanId) };
  };
  const placementsOf = async (account: number, mediaPlanId: number) => {
    const read = await http<{
      adServers: { placements: { placementId: string; dimension: string; isTagPresent: boolean; placementName: string; siteName: string }[] }[];
    }>('GET', `/v2/accounts/${account}/media-plans/${mediaPlanId}`, { key: fullKey });
    if (read.status !== 200) throw new Error(read.text);
    return new Map(read.body.adServers.flatMap((a) => a.placements).map((p) => [p.dimension, { ...p, placementId: Number(p.placementId) }]));
  };

  const mapsPath = (account: number, campaign: number) => `/v2/accounts/${account}/campaign/${campaign}/tagVariablesMap`;
  const tagPath = (account: number, plan: number, placement: number, kind: string) =>
    `/v2/accounts/${account}/media-plans/${plan}/placements/${placement}/tags/${kind}`;
  const downloadPath = (account: number, campaign: number) => `/v2/accounts/${account}/retail-campaigns/${campaign}/download-tags`;

  beforeAll(async () => {
    // The system starts every service, and storage-library needs an object store to start.
    s3Dir = await mkdtemp(join(tmpdir(), 'tagging-e2e-'));
    s3 = await startEmbeddedS3({ port: 0, directory: s3Dir });
    system = await startE2eSystem('tag', { env: { S3_ENDPOINT: s3.endpoint } });
    http = httpClient(system.baseUrl);
    const a = admin(http);
    orgId = await a.createOrg({ name: 'Tagging Retail', isRetailer: true, dimensionWhitelist: ['300x250', '728x90', '320x50'] });
    accountA = await a.createAccount(orgId, 'Tagging US');
    accountB = await a.createAccount(orgId, 'Tagging EU');
    const otherOrgId = await a.createOrg({ name: 'Other Tagging Retail', isRetailer: true, dimensionWhitelist: ['300x250'] });
    otherAccount = await a.createAccount(otherOrgId, 'Other US');
    fullKey = (await a.createKey({ orgId, permissions: ['*'] })).apiKey;
    otherOrgKey = (await a.createKey({ orgId: otherOrgId, permissions: ['*'] })).apiKey;
    for (const missing of ['Tags_View', 'Tags_Edit', 'MediaPlan_Tags_Download', 'Trackers_View', 'Trackers_Edit']) {
      keysWithout.set(missing, (await a.createKey({ orgId, permissions: ALL_PERMISSIONS_USED.filter((p) => p !== missing) })).apiKey);
    }
  });

  afterAll(async () => {
    expect(await system?.stop()).toEqual([0, 0]);
    await s3?.close();
    if (s3Dir) await rm(s3Dir, { recursive: true, force: true });
  });

  describe('tag variable maps', () => {
    it('creates (201), lists in idx order and updates by idx', async () => {
      const campaign = await createCampaign(accountA);
      const created = await http('POST', mapsPath(accountA, campaign), {
        key: fullKey,
        json: { adServerId: 'gam', dataSignal: 'storeId', macroName: '%%PATTERN:store%%', adServerParams: { keyValue: true } },
      });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({ idx: expect.any(Number), msg: 'Tag variable map created.' });
      const second = await http('POST', mapsPath(accountA, campaign), {
        key: fullKey,
        json: { adServerId: 'xandr', dataSignal: 'storeId', macroName: '${STORE_ID}' },
      });
      expect(second.status).toBe(201);
      const listed = await http('GET', mapsPath(accountA, campaign), { key: fullKey });
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual([
        { idx: created.body.idx, adServerId: 'gam', dataSignal: 'storeId', macroName: '%%PATTERN:store%%', adServerParams: { keyValue: true } },
        { idx: second.body.idx, adServerId: 'xandr', dataSignal: 'storeId', macroName: '${STORE_ID}', adServerParams: {} },
      ]);
      const updated = await http('PUT', mapsPath(accountA, campaign), {
        key: fullKey,
        json: { idx: second.body.idx, adServerId: 'cm360', dataSignal: 'city', macroName: '%ecity!' },
      });
      expect(updated.status).toBe(200);
      expect(updated.body).toEqual({ idx: second.body.idx, msg: 'Tag variable map updated.' });
      expect(((await http('GET', mapsPath(accountA, campaign), { key: fullKey })).body as unknown as Record<string, unknown>[])[1]).toEqual({
        idx: second.body.idx,
        adServerId: 'cm360',
        dataSignal: 'city',
        macroName: '%ecity!',
        adServerParams: {},
      });
    });

    it('refuses a duplicate (campaign, adServer, dataSignal) with 409 on create and update, and an unknown idx with 404', async () => {
      const campaign = await createCampaign(accountA);
      const body = { adServerId: 'gam', dataSignal: 'weather', macroName: '%%PATTERN:weather%%' };
      expect((await http('POST', mapsPath(accountA, campaign), { key: fullKey, json: body })).status).toBe(201);
      expectProblem(
        await http('POST', mapsPath(accountA, campaign), { key: fullKey, json: { ...body, macroName: '%%PATTERN:w%%' } }),
        409,
        'TAG_VARIABLE_MAP_DUPLICATE',
      );
      const other = await http('POST', mapsPath(accountA, campaign), { key: fullKey, json: { ...body, dataSignal: 'zip' } });
      expectProblem(
        await http('PUT', mapsPath(accountA, campaign), { key: fullKey, json: { ...body, idx: other.body.idx } }),
        409,
        'TAG_VARIABLE_MAP_DUPLICATE',
      );
      expectProblem(await http('PUT', mapsPath(accountA, campaign), { key: fullKey, json: { ...body, idx: 987_654 } }), 404, 'TAG_VARIABLE_MAP_NOT_FOUND');
      // The same campaign's entry on another ad server is another entry; another campaign's is its own.
      expect(
        (await http('POST', mapsPath(accountA, campaign), { key: fullKey, json: { ...body, adServerId: 'ttd', macroName: '%%TTD_WEATHER%%' } })).status,
      ).toBe(201);
      expect((await http('POST', mapsPath(accountA, await createCampaign(accountA)), { key: fullKey, json: body })).status).toBe(201);
    });

    it('refuses an ad server outside the catalog, a macro in another syntax, and malformed bodies, naming each field, storing nothing', async () => {
      const campaign = await createCampaign(accountA);
      const cases: [Record<string, unknown>, string[]][] = [
        [{ adServerId: 'doubleclick-classic', dataSignal: 'a', macroName: '%%A%%' }, ['/adServerId']],
        [{ adServerId: 'gam', dataSignal: 'a', macroName: '${A}' }, ['/macroName']],
        [{ adServerId: 'gam', dataSignal: '9lives', macroName: '%%A%%' }, ['/dataSignal']],
        [{ adServerId: 'gam', dataSignal: 'a'.repeat(101), macroName: '%%A%%' }, ['/dataSignal']],
        [{ adServerId: 'gam', dataSignal: 'a', macroName: `%%${'A'.repeat(100)}%%` }, ['/macroName']],
        [{ adServerId: 'gam', dataSignal: 'a' }, ['/macroName']],
        [{ adServerId: 'gam', dataSignal: 'a', macroName: '%%A%%', colour: 'red' }, ['/colour']],
        [{ adServerId: 'gam', dataSignal: 'a', macroName: '%%A%%', adServerParams: [1] }, ['/adServerParams']],
      ];
      for (const [json, pointers] of cases) {
        const result = await http('POST', mapsPath(accountA, campaign), { key: fullKey, json });
        expectProblem(result, 400, 'VALIDATION_FAILED');
        expect([...new Set((result.body.errors as { pointer: string }[]).map((e) => e.pointer))]).toEqual(pointers);
      }
      const badIdx = await http('PUT', mapsPath(accountA, campaign), {
        key: fullKey,
        json: { idx: 0, adServerId: 'gam', dataSignal: 'a', macroName: '%%A%%' },
      });
      expect(badIdx.body.errors).toEqual([expect.objectContaining({ pointer: '/idx' })]);
      const badPath = await http('GET', `/v2/accounts/${accountA}/campaign/1e3/tagVariablesMap`, { key: fullKey });
      expect(badPath.body.errors).toEqual([expect.objectContaining({ parameter: 'campaignId' })]);
      expect((await http('GET', mapsPath(accountA, campaign), { key: fullKey })).body).toEqual([]);
    });

    it("answers another account's campaign, a missing one and another org's account with 404", async () => {
      const campaign = await createCampaign(accountA);
      const body = { adServerId: 'gam', dataSignal: 'a', macroName: '%%A%%' };
      expectProblem(await http('GET', mapsPath(accountB, campaign), { key: fullKey }), 404, 'RETAIL_CAMPAIGN_NOT_FOUND');
      expectProblem(await http('POST', mapsPath(accountB, campaign), { key: fullKey, json: body }), 404, 'RETAIL_CAMPAIGN_NOT_FOUND');
      expectProblem(await http('GET', mapsPath(accountA, campaign + 10_000), { key: fullKey }), 404, 'RETAIL_CAMPAIGN_NOT_FOUND');
      expectProblem(await http('GET', mapsPath(accountA, campaign), { key: otherOrgKey }), 404, 'ACCOUNT_NOT_FOUND');
      expectProblem(await http('POST', mapsPath(otherAccount, campaign), { key: fullKey, json: body }), 404, 'ACCOUNT_NOT_FOUND');
      expect((await http('GET', mapsPath(accountA, campaign), { key: fullKey })).body).toEqual([]);
    });

    it('needs Tags_View to list and Tags_Edit to create and update', async () => {
      const campaign = await createCampaign(accountA);
      const body = { adServerId: 'gam', dataSignal: 'a', macroName: '%%A%%' };
      const list = await http('GET', mapsPath(accountA, campaign), { key: keyWithout('Tags_View') });
      expectProblem(list, 403, 'PERMISSION_DENIED');
      expect(list.body.requiredPermission).toBe('Tags_View');
      for (const result of [
        await http('POST', mapsPath(accountA, campaign), { key: keyWithout('Tags_Edit'), json: body }),
        await http('PUT', mapsPath(accountA, campaign), { key: keyWithout('Tags_Edit'), json: { ...body, idx: 1 } }),
      ]) {
        expectProblem(result, 403, 'PERMISSION_DENIED');
        expect(result.body.requiredPermission).toBe('Tags_Edit');
      }
      expect((await http('GET', mapsPath(accountA, campaign), { key: keyWithout('Tags_Edit') })).body).toEqual([]);
    });
  });

  describe('single tags and the tag CSV', () => {
    const siteName = '=HYPERLINK("x") Site, "quoted"';
    let campaign: number;
    let plan: Awaited<ReturnType<typeof createPlan>>;
    const placement = (dimension: string) => plan.placements.get(dimension)?.placementId as number;

    beforeAll(async () => {
      campaign = await createCampaign(accountA, 'Été "Spring"/Promo');
      plan = await createPlan(accountA, campaign, await createChannel('gam', siteName), ['300x250', '728x90', '320x50']);
      await http('POST', mapsPath(accountA, campaign), { key: fullKey, json: { adServerId: 'gam', dataSignal: 'storeId', macroName: '%%PATTERN:store%%' } });
    });

    it("generates a rich-media script tag for the placement's ad server, stores it and marks the placement tagged", async () => {
      expect(plan.placements.get('300x250')?.isTagPresent).toBe(false);
      const result = await http('POST', tagPath(accountA, plan.mediaPlanId, placement('300x250'), 'rich-media'), {
        key: fullKey,
        json: {
          campaignId: campaign,
          adServerId: 'gam',
          includeAdChoices: true,
          privacy: [
            { include: true, type: 'GDPRv2', consentMacro: '${GDPR_CONSENT_755}' },
            { include: true, type: 'ccpa' },
          ],
          secureTags: true,
          dataSignalMap: { city: '%%PATTERN:city%%' },
          enableNoScriptTag: true,
          thirdPartyTrackingScript: 'http://tracker.example/p.js?cb=%%CACHEBUSTER%%',
        },
      });
      expect(result.status).toBe(200);
      expect(result.body).toEqual({
        message: expect.stringContaining('upgraded to https://tracker.example/p.js'),
        tagMetadataId: expect.any(Number),
        tagValue: expect.any(String),
      });
      const tag = result.body.tagValue as string;
      const scripts = elements(tag).filter((e) => e.tagName === 'script');
      expect(scripts).toHaveLength(2);
      const src = new URL(attr(scripts[0], 'src') as string);
      expect(src.pathname).toBe('/serve/v1/tags/rich-media.js');
      expect(src.protocol).toBe('https:');
      expect(src.searchParams.get('plc')).toBe(String(placement('300x250')));
      expect(src.searchParams.get('tm')).toBe(String(result.body.tagMetadataId));
      expect(rawValues(src, 'ds_storeId')).toEqual(['%%PATTERN:store%%']);
      expect(rawValues(src, 'ds_city')).toEqual(['%%PATTERN:city%%']);
      for (const [name, value] of [
        ['gdpr', '${GDPR}'],
        ['gdpr_consent', '${GDPR_CONSENT_755}'],
        ['us_privacy', '${US_PRIVACY}'],
        ['cb', '%%CACHEBUSTER%%'],
        ['click', '%%CLICK_URL_ESC%%'],
      ]) {
        expect(rawValues(src, name)).toEqual([value]);
      }
      const urls = elements(tag).flatMap((e) => [attr(e, 'src'), attr(e, 'href')].filter((u): u is string => u !== undefined));
      expect(urls.map((u) => new URL(u).protocol)).toEqual(['https:', 'https:', 'https:', 'https:']);
      expect(elements(tag).some((e) => e.tagName === 'noscript')).toBe(true);
      const after = await placementsOf(accountA, plan.mediaPlanId);
      expect([after.get('300x250')?.isTagPresent, after.get('728x90')?.isTagPresent]).toEqual([true, false]);
    });

    it('generates every other kind: in-stream as a VAST URL, the rest as script elements', async () => {
      const base = { campaignId: campaign, adServerId: 'gam' };
      const instream = await http('POST', tagPath(accountA, plan.mediaPlanId, placement('728x90'), 'video/in-stream'), {
        key: fullKey,
        json: {
          ...base,
          tagType: 'VAST 4.2',
          playerType: { name: 'jwplayer', version: '8' },
          privacy: [{ include: true, type: 'gpp', consentMacro: '${GPP_STRING_7}' }],
        },
      });
      expect(instream.status).toBe(200);
      const vast = new URL(instream.body.tagValue as string);
      expect(vast.pathname).toBe('/serve/v1/vast/in-stream.xml');
      expect([rawValues(vast, 'gpp'), rawValues(vast, 'gpp_sid')]).toEqual([['${GPP_STRING_7}'], ['${GPP_SID}']]);
      for (const [kind, extra] of [
        ['video/in-banner', { isDynamicPriVideo: true }],
        ['video/mobile/in-web', { baseAdUnitId: 3, useCustomLayout: true }],
        ['native', { adUnitId: 4, additionalParams: { responseFormat: 2 } }],
      ] as const) {
        const result = await http('POST', tagPath(accountA, plan.mediaPlanId, placement('320x50'), kind), { key: fullKey, json: { ...base, ...extra } });
        expect(result.status).toBe(200);
        const [script] = elements(result.body.tagValue as string);
        expect(script.tagName).toBe('script');
        expect(new URL(attr(script, 'src') as string).pathname).toBe(`/serve/v1/tags/${kind.replace(/\//g, '-')}.js`);
      }
    });

    it('refuses tags that would be wrong for the ad server or the plan, naming the field', async () => {
      const path = tagPath(accountA, plan.mediaPlanId, placement('300x250'), 'rich-media');
      const cases: [Record<string, unknown>, string, string][] = [
        [{ campaignId: campaign, adServerId: 'cm360' }, '/adServerId', 'AD_SERVER_MISMATCH'],
        [{ campaignId: campaign, adServerId: 'nope' }, '/adServerId', 'UNKNOWN_AD_SERVER'],
        [{ campaignId: campaign + 1, adServerId: 'gam' }, '/campaignId', 'MEDIA_PLAN_NOT_FOUND'],
        [
          { campaignId: campaign, adServerId: 'gam', privacy: [{ include: true, type: 'GDPRv2', consentMacro: '${GDPR_CONSENT}' }] },
          '/privacy/0/consentMacro',
          'INVALID_FORMAT',
        ],
        [{ campaignId: campaign, adServerId: 'gam', dataSignalMap: { city: '${CITY}' } }, '/dataSignalMap/city', 'MACRO_SYNTAX'],
        [
          { campaignId: campaign, adServerId: 'gam', thirdPartyTrackingScript: 'https://t.example/p?c=${CACHEBUSTER}' },
          '/thirdPartyTrackingScript',
          'FOREIGN_MACRO',
        ],
        [
          { campaignId: campaign, adServerId: 'gam', thirdPartyTrackingScript: '<iframe src="https://t.example"></iframe>' },
          '/thirdPartyTrackingScript',
          'INVALID_FORMAT',
        ],
      ];
      for (const [json, pointer, code] of cases) {
        const result = await http('POST', path, { key: fullKey, json });
        expectProblem(result, 400, 'VALIDATION_FAILED');
        expect(result.body.errors).toEqual([expect.objectContaining({ pointer, code })]);
      }
      for (const [kind, json, pointer] of [
        ['rich-media', { adServerId: 'gam' }, '/campaignId'],
        ['native', { campaignId: campaign, adServerId: 'gam' }, '/adUnitId'],
        ['video/mobile/in-web', { campaignId: campaign, adServerId: 'gam' }, '/baseAdUnitId'],
        ['video/in-stream', { campaignId: campaign, adServerId: 'gam', enableForMobileApp: true }, '/enableForMobileApp'],
        ['rich-media', { campaignId: campaign, adServerId: 'gam', privacy: [{ include: true, type: 'tcf' }] }, '/privacy/0/type'],
      ] as const) {
        const result = await http('POST', tagPath(accountA, plan.mediaPlanId, placement('300x250'), kind), { key: fullKey, json });
        expect(result.status).toBe(400);
        expect(result.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ pointer })]));
      }
    });

    it("answers an unknown placement, another account's plan and another org with 404, and a key without Tags_Edit with 403", async () => {
      const json = { campaignId: campaign, adServerId: 'gam' };
      expectProblem(await http('POST', tagPath(accountA, plan.mediaPlanId, 987_654, 'rich-media'), { key: fullKey, json }), 404, 'PLACEMENT_NOT_FOUND');
      expectProblem(
        await http('POST', tagPath(accountB, plan.mediaPlanId, placement('300x250'), 'rich-media'), { key: fullKey, json }),
        404,
        'MEDIA_PLAN_NOT_FOUND',
      );
      expectProblem(
        await http('POST', tagPath(accountA, plan.mediaPlanId, placement('300x250'), 'rich-media'), { key: otherOrgKey, json }),
        404,
        'ACCOUNT_NOT_FOUND',
      );
      const denied = await http('POST', tagPath(accountA, plan.mediaPlanId, placement('300x250'), 'rich-media'), { key: keyWithout('Tags_Edit'), json });
      expectProblem(denied, 403, 'PERMISSION_DENIED');
      expect(denied.body.requiredPermission).toBe('Tags_Edit');
    });

    it('downloads the CSV of every ad unit tag once the campaign is ACTIVE: header row, RFC 4180 quoting, formulas neutralised, a safe file name', async () => {
      expectProblem(await http('GET', downloadPath(accountA, campaign), { key: fullKey }), 409, 'RETAIL_CAMPAIGN_NOT_ACTIVE');
      // A newer tag of the same placement and kind replaces the older one in the file.
      const newest = await http('POST', tagPath(accountA, plan.mediaPlanId, placement('300x250'), 'rich-media'), {
        key: fullKey,
        json: { campaignId: campaign, adServerId: 'gam' },
      });
      await activate(accountA, campaign);

      // Through the conforming client: the download is held to its documented media type too.
      const response = await http('GET', downloadPath(accountA, campaign), { key: fullKey });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/x-download');
      const disposition = response.headers.get('content-disposition') as string;
      expect(disposition).toMatch(/^attachment; filename="[A-Za-z0-9 ._-]+_tags\.csv"; filename\*=UTF-8''/);
      expect(decodeURIComponent(disposition.slice(disposition.indexOf("UTF-8''") + "UTF-8''".length))).toBe('Été "Spring"_Promo_tags.csv');
      const text = response.text;
      expect(text.split('\r\n')[0]).toBe('Site Name,Placement Id,Placement Name,Dimension,Ad Server,Tag Kind,Tag');
      const rows = parseCsv(text, { columns: true }) as Record<string, string>[];
      expect(rows.map((r) => [r['Placement Id'], r['Tag Kind']])).toEqual([
        [String(placement('728x90')), 'video/in-stream'],
        [String(placement('320x50')), 'video/in-banner'],
        [String(placement('320x50')), 'video/mobile/in-web'],
        [String(placement('320x50')), 'native'],
        [String(placement('300x250')), 'rich-media'],
      ]);
      expect(rows[4].Tag).toBe(newest.body.tagValue);
      expect(rows.every((r) => r['Site Name'] === `'${siteName}` && r['Ad Server'] === 'gam')).toBe(true);
      expect(rows[4]['Placement Name']).toBe(plan.placements.get('300x250')?.placementName);
    });

    it('answers the download for another account with 404 and for a key without MediaPlan_Tags_Download with 403', async () => {
      expectProblem(await http('GET', downloadPath(accountB, campaign), { key: fullKey }), 404, 'RETAIL_CAMPAIGN_NOT_FOUND');
      expectProblem(await http('GET', downloadPath(accountA, campaign), { key: otherOrgKey }), 404, 'ACCOUNT_NOT_FOUND');
      const denied = await http('GET', downloadPath(accountA, campaign), { key: keyWithout('MediaPlan_Tags_Download') });
      expectProblem(denied, 403, 'PERMISSION_DENIED');
      expect(denied.body.requiredPermission).toBe('MediaPlan_Tags_Download');
    });

    it('downloads an ACTIVE campaign without tags as the header row alone, named in plain ASCII', async () => {
      const empty = await createCampaign(accountA, 'Plain name');
      await activate(accountA, empty);
      const response = await http('GET', downloadPath(accountA, empty), { key: fullKey });
      expect(response.headers.get('content-disposition')).toBe('attachment; filename="Plain name_tags.csv"');
      expect(parseCsv(response.text, { columns: true })).toEqual([]);
    });
  });
  describe('trackers', () => {
    let campaign: number;
    let plan: Awaited<ReturnType<typeof createPlan>>;
    const siteName = 'Tracker Site';
    const trackersPath = (account: number, mediaPlanId: number, campaignId: number) =>
      `/v2/accounts/${account}/media-plans/${mediaPlanId}/trackers/${campaignId}`;
    const typesPath = (account: number, campaignId: number) => `/v2/accounts/${account}/retail-campaigns/${campaignId}/trackers`;
    const entry = (dimension: string, trackers: Record<string, string>) => ({ siteName, placementName: `${dimension} - ${siteName}`, ...trackers });

    beforeAll(async () => {
      campaign = await createCampaign(accountA, 'Tracker campaign');
      plan = await createPlan(accountA, campaign, await createChannel('gam', siteName), ['300x250', '728x90']);
    });

    it('lists every tracker type and, once trackers are stored, the selected ones', async () => {
      const before = await http('GET', typesPath(accountA, campaign), { key: fullKey });
      expect(before.status).toBe(200);
      expect((before.body.trackerTypes as string[]).length).toBe(22);
      expect(before.body.trackersSelected).toEqual([]);
    });

    it('validates without storing, then appends trackers by site and placement name, refusing bad values into errorResponse by field', async () => {
      const body = {
        type: 'inline',
        mediaPlanDetails: [
          entry('300x250', {
            primaryClickTracker: 'https://trk.example/c?cb=%%CACHEBUSTER%%',
            bannerImpressionInTagPixelTracker: 'ftp://trk.example/i.gif',
            bannerImpressionInTagScriptTracker: '<script src="https://trk.example/s.js"></script>',
            secondaryClickTracker1: 'https://trk.example/c2?r=${CACHEBUSTER}',
            mobileBannerClickTracker: 'https://trk.example/m?r=%%CLICK_URL_UNESC%%&x=1',
          }),
          { siteName: 'Nowhere', placementName: 'x', primaryClickTracker: 'https://trk.example/c' },
        ],
      };
      const dryRun = await http('PUT', trackersPath(accountA, plan.mediaPlanId, campaign), { key: fullKey, json: { ...body, isValidate: true } });
      expect(dryRun.status).toBe(200);
      expect(dryRun.body).toEqual({
        siteUpdatedCount: 0,
        siteAppendedCount: 1,
        placementUpdatedCount: 0,
        placementAppendedCount: 1,
        trackerAppendedCount: 2,
        updatedCampaignId: false,
        updatedMediaPlanName: false,
        errorResponse: {
          bannerImpressionInTagPixelTracker: ['ftp://trk.example/i.gif'],
          secondaryClickTracker1: ['https://trk.example/c2?r=${CACHEBUSTER}'],
          mobileBannerClickTracker: ['https://trk.example/m?r=%%CLICK_URL_UNESC%%&x=1'],
          siteName: ['Nowhere'],
        },
      });
      expect((await http('GET', typesPath(accountA, campaign), { key: fullKey })).body.trackersSelected).toEqual([]);

      const stored = await http('PUT', trackersPath(accountA, plan.mediaPlanId, campaign), { key: fullKey, json: body });
      expect(stored.body).toMatchObject({ siteAppendedCount: 1, placementAppendedCount: 1, trackerAppendedCount: 2, updatedCampaignId: true });
      const more = await http('PUT', trackersPath(accountA, plan.mediaPlanId, campaign), {
        key: fullKey,
        json: { type: 'inline', mediaPlanDetails: [entry('728x90', { videoStartViewedTracker: 'https://trk.example/v' }), body.mediaPlanDetails[0]] },
      });
      expect(more.body).toMatchObject({
        siteUpdatedCount: 1,
        siteAppendedCount: 0,
        placementAppendedCount: 1,
        placementUpdatedCount: 0,
        trackerAppendedCount: 1,
      });
      expect((await http('GET', typesPath(accountA, campaign), { key: fullKey })).body.trackersSelected).toEqual([
        'primaryClickTracker',
        'bannerImpressionInTagScriptTracker',
        'videoStartViewedTracker',
      ]);
    });

    it('reads trackers per site and placement, narrowed by filters', async () => {
      const all = await http<{ mediaPlanId: number; sites: { id: number; siteId: number; siteName: string; placements: Record<string, unknown>[] }[] }>(
        'GET',
        trackersPath(accountA, plan.mediaPlanId, campaign),
        { key: fullKey },
      );
      expect(all.status).toBe(200);
      expect(all.body.mediaPlanId).toBe(plan.mediaPlanId);
      expect(all.body.sites).toHaveLength(1);
      const [site] = all.body.sites;
      expect(site).toMatchObject({ siteName, id: site.siteId });
      const byId = new Map(site.placements.map((p) => [p.placementId, p]));
      expect(byId.get(String(plan.placements.get('300x250')?.placementId))).toMatchObject({
        primaryClickTracker: ['https://trk.example/c?cb=%%CACHEBUSTER%%'],
        bannerImpressionInTagScriptTrackers: ['<script src="https://trk.example/s.js"></script>'],
        bannerImpressionTrackers: [],
      });
      const placementId = plan.placements.get('728x90')?.placementId as number;
      const narrowed = await http<{ sites: { placements: { placementId: string; videoStartViewedTracker: string[] }[] }[] }>(
        'GET',
        `${trackersPath(accountA, plan.mediaPlanId, campaign)}?filters=sites_siteId=${site.siteId},sites_placements_placementId=${placementId}`,
        { key: fullKey },
      );
      expect(narrowed.body.sites.flatMap((s) => s.placements).map((p) => [p.placementId, p.videoStartViewedTracker])).toEqual([
        [String(placementId), ['https://trk.example/v']],
      ]);
      for (const filters of ['sites_siteId=x', 'colour=red', 'sites_siteId=1,sites_siteId=2']) {
        const refused = await http('GET', `${trackersPath(accountA, plan.mediaPlanId, campaign)}?filters=${encodeURIComponent(filters)}`, { key: fullKey });
        expectProblem(refused, 400, 'VALIDATION_FAILED');
        expect(refused.body.errors).toEqual([expect.objectContaining({ parameter: 'filters' })]);
      }
    });

    it('refuses malformed update bodies, naming each field', async () => {
      for (const [json, pointer] of [
        [{ type: 'bulk', mediaPlanDetails: [] }, '/type'],
        [{ type: 'inline', mediaPlanDetails: [{ ...entry('300x250', {}), clickTracker: 'https://x.example' }] }, '/mediaPlanDetails/0/clickTracker'],
        [
          { type: 'inline', mediaPlanDetails: [entry('300x250', { primaryClickTracker: `https://x.example/${'a'.repeat(2048)}` })] },
          '/mediaPlanDetails/0/primaryClickTracker',
        ],
        [{ type: 'inline', mediaPlanDetails: Array.from({ length: 501 }, () => entry('300x250', {})) }, '/mediaPlanDetails'],
        [{ type: 'inline' }, '/mediaPlanDetails'],
      ] as const) {
        const result = await http('PUT', trackersPath(accountA, plan.mediaPlanId, campaign), { key: fullKey, json });
        expect(result.status).toBe(400);
        expect(result.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ pointer })]));
      }
    });

    it("answers another account's plan, a campaign that is not the plan's and another org with 404, and missing permissions with 403", async () => {
      expectProblem(await http('GET', trackersPath(accountB, plan.mediaPlanId, campaign), { key: fullKey }), 404, 'MEDIA_PLAN_NOT_FOUND');
      expectProblem(await http('GET', trackersPath(accountA, plan.mediaPlanId, campaign + 1), { key: fullKey }), 404, 'MEDIA_PLAN_NOT_FOUND');
      expectProblem(await http('GET', typesPath(accountB, campaign), { key: fullKey }), 404, 'RETAIL_CAMPAIGN_NOT_FOUND');
      expectProblem(
        await http('PUT', trackersPath(accountA, plan.mediaPlanId, campaign), { key: otherOrgKey, json: { type: 'inline', mediaPlanDetails: [] } }),
        404,
        'ACCOUNT_NOT_FOUND',
      );
      for (const [result, permission] of [
        [await http('GET', typesPath(accountA, campaign), { key: keyWithout('Trackers_View') }), 'Trackers_View'],
        [await http('GET', trackersPath(accountA, plan.mediaPlanId, campaign), { key: keyWithout('Trackers_View') }), 'Trackers_View'],
        [
          await http('PUT', trackersPath(accountA, plan.mediaPlanId, campaign), {
            key: keyWithout('Trackers_Edit'),
            json: { type: 'inline', mediaPlanDetails: [] },
          }),
          'Trackers_Edit',
        ],
      ] as const) {
        expectProblem(result, 403, 'PERMISSION_DENIED');
        expect(result.body.requiredPermission).toBe(permission);
      }
    });
  });
});
