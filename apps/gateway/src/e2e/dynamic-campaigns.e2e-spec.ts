import { admin, apiClient, E2eSystem, exchange, expectProblem, Http, httpClient, JsonBody, startE2eSystem } from './e2e-system';

jest.setTimeout(120_000);

interface CampaignSummary {
  campaignId: number;
  campaignName: string;
  defaultURL: string;
  creationDate: string;
  lastUpdate: string;
}
interface CampaignPage {
  campaigns: CampaignSummary[];
  next: string;
  previous: string;
}
interface DataSignalPage {
  dataSignals: { dataSignalId: number; dataSignalName: string; dataSignalProperties: { propertyId: string; operators: string[]; valueType: string }[] }[];
  next: string;
  previous: string;
}

const CAMPAIGN_DATE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d$/;

const campaignBody = (overrides: Record<string, unknown> = {}) => ({
  campaignName: 'Weather-led spring',
  defaultURL: 'https://shop.example.com/spring',
  assetMap: [],
  decisionMap: [],
  decisionGraph: {
    defaultCreativeMaster: 'cm-default',
    rulePriority: 'EQUAL_ROTATION',
    segments: [
      {
        name: 'Warm weekend',
        creativeMasters: ['cm-sun', 'cm-beach'],
        condition: {
          operator: 'and',
          expressions: [
            { dataSignalServiceId: 3, dataSignalPropertyId: 'temperature', operator: 'greater-than', value: 20 },
            { dataSignalServiceId: 2, dataSignalPropertyId: 'dayOfWeek', operator: 'IN', value: ['SATURDAY', 'SUNDAY'] },
          ],
        },
      },
    ],
  },
  ad: { adId: 'ad-7' },
  ...overrides,
});

describe('dynamic campaigns and data signals over HTTP (gateway -> content-creative -> MariaDB)', () => {
  let system: E2eSystem;
  let http: Http;
  let accountA: number;
  let accountB: number;
  let foreignAccount: number;
  let fullKey: string;
  let viewKey: string;
  let exportKey: string;
  let signalsKey: string;
  let sourceOfA: number;
  let sourceOfB: number;

  const campaignsPath = (account: number) => `/v2/accounts/${account}/campaigns`;
  type Page = { offset?: number; limit?: number };
  const api = (key: string) => apiClient(http, { apiKey: key });
  /** Bodies are typed loosely: the refusal specs send what the contract does not allow. */
  const create = (body: unknown, account = accountA, key = fullKey) =>
    exchange(
      api(key).POST('/v2/accounts/{accountId}/campaigns', { params: { path: { accountId: account } }, body: body as JsonBody<'createDynamicCampaign'> }),
    );
  const list = (query: Page = {}, account = accountA, key = fullKey) =>
    exchange(api(key).GET('/v2/accounts/{accountId}/campaigns', { params: { path: { accountId: account }, query } }));
  const read = (id: number | string, account = accountA, key = fullKey) =>
    exchange(api(key).GET('/v2/accounts/{accountId}/campaigns/{campaignId}', { params: { path: { accountId: account, campaignId: Number(id) } } }));
  const remove = (id: number | string, account = accountA, key = fullKey) =>
    exchange(api(key).DELETE('/v2/accounts/{accountId}/campaigns/{campaignId}', { params: { path: { accountId: account, campaignId: Number(id) } } }));
  const signals = (query: Page = {}, account = accountA, key = fullKey) =>
    exchange(api(key).GET('/v2/accounts/{accountId}/data-signals', { params: { path: { accountId: account }, query } }));
  const errorsOf = (result: { body: { errors?: Record<string, unknown>[] } }) =>
    (result.body.errors ?? []).map((e) => `${String(e.pointer)} ${String(e.code)}`);

  beforeAll(async () => {
    system = await startE2eSystem('dc');
    http = httpClient(system.baseUrl);
    const a = admin(http);
    const orgId = await a.createOrg({ name: 'Dynamic Retail', isRetailer: true });
    accountA = await a.createAccount(orgId, 'Dynamic A');
    accountB = await a.createAccount(orgId, 'Dynamic B');
    const otherOrg = await a.createOrg({ name: 'Someone else', isRetailer: true });
    foreignAccount = await a.createAccount(otherOrg, 'Not ours');
    fullKey = (await a.createKey({ orgId, permissions: ['*'] })).apiKey;
    viewKey = (await a.createKey({ orgId, permissions: ['DynamicCampaigns_View'] })).apiKey;
    // The interface's Campaigns_Create gates export only; it does not reach dynamic campaigns.
    exportKey = (await a.createKey({ orgId, permissions: ['Campaigns_Create', 'Campaigns_List'] })).apiKey;
    signalsKey = (await a.createKey({ orgId, permissions: ['DataSignals_View'] })).apiKey;
    const inlineSource = async (account: number) => {
      const created = await http<{ id: number }>('POST', `/v2/accounts/${account}/asset-sources/inline`, {
        key: fullKey,
        json: {
          assetSourceName: 'Weather creatives',
          columnNames: ['sku', 'condition', 'imageUrl'],
          assetKeyColumn: 'sku',
          data: [{ sku: 'A1', condition: 'rain', imageUrl: 'https://cdn.example.com/a1.png' }],
        },
      });
      if (created.status !== 201) throw new Error(created.text);
      return created.body.id;
    };
    sourceOfA = await inlineSource(accountA);
    sourceOfB = await inlineSource(accountB);
  });

  afterAll(async () => {
    expect(await system?.stop()).toEqual([0, 0]);
  });

  describe('data signals', () => {
    it('lists the catalog families with their properties and operators; next and previous are "" at the ends', async () => {
      const all = await signals({ limit: 100 }, accountA, signalsKey);
      expect(all.status).toBe(200);
      expect(all.body.dataSignals.map((s) => s.dataSignalName)).toEqual(['Geography', 'Time', 'Weather', 'Device', 'Audience']);
      const geography = all.body.dataSignals[0];
      expect(geography.dataSignalProperties.map((p) => p.propertyId)).toEqual(['country', 'region', 'city', 'postalCode']);
      expect(geography.dataSignalProperties[0].operators).toEqual(expect.arrayContaining(['EQUALS', 'IN']));
      const weather = all.body.dataSignals[2];
      expect(weather.dataSignalProperties.find((p) => p.propertyId === 'temperature')).toMatchObject({
        valueType: 'number',
        operators: expect.arrayContaining(['GREATER_THAN', 'LESS_THAN']),
      });
      expect(all.body).toMatchObject({ next: '', previous: '' });
    });

    it('pages with next and previous links that work when followed', async () => {
      const first = await signals({ offset: 0, limit: 2 });
      expect(first.body.dataSignals.map((s) => s.dataSignalId)).toEqual([1, 2]);
      expect(first.body.previous).toBe('');
      expect(first.body.next).toBe(`${system.baseUrl}/v2/accounts/${accountA}/data-signals?offset=2&limit=2`);
      const second = await http<DataSignalPage>('GET', first.body.next, { key: fullKey });
      expect(second.body.dataSignals.map((s) => s.dataSignalId)).toEqual([3, 4]);
      const third = await http<DataSignalPage>('GET', second.body.next, { key: fullKey });
      expect(third.body.dataSignals.map((s) => s.dataSignalId)).toEqual([5]);
      expect(third.body.next).toBe('');
      expect(third.body.previous).toBe(`${system.baseUrl}/v2/accounts/${accountA}/data-signals?offset=2&limit=2`);
    });

    it('needs DataSignals_View, an account of the key, and a limit within the cap', async () => {
      expectProblem(await signals({}, accountA, viewKey), 403, 'PERMISSION_DENIED');
      expectProblem(await signals({}, foreignAccount), 404, 'ACCOUNT_NOT_FOUND');
      expectProblem(await signals({ limit: 101 }), 400, 'VALIDATION_FAILED');
    });
  });

  describe('campaigns', () => {
    it('creates (campaignId a string), lists (an integer) and reads back the whole campaign with its ad', async () => {
      const created = await create(campaignBody());
      expect(created.status).toBe(201);
      expect(created.body).toEqual({ campaignId: expect.stringMatching(/^\d+$/), msg: expect.any(String) });
      const id = Number(created.body.campaignId);

      const listed = await list();
      expect(listed.status).toBe(200);
      const summary = listed.body.campaigns.find((c) => c.campaignId === id);
      expect(summary).toEqual({
        campaignId: id,
        campaignName: 'Weather-led spring',
        defaultURL: 'https://shop.example.com/spring',
        creationDate: expect.stringMatching(CAMPAIGN_DATE),
        lastUpdate: expect.stringMatching(CAMPAIGN_DATE),
      });

      const got = await read(id);
      expect(got.status).toBe(200);
      const { assetMap, decisionMap, decisionGraph } = campaignBody();
      expect(got.body).toEqual({ ...summary, assetMap, decisionMap, decisionGraph, ad: { adId: 'ad-7', title: 'Weather-led spring', dynamic: true } });
    });

    it('reads a campaign without segments as not dynamic, with the title it was given', async () => {
      const created = await create(
        campaignBody({ decisionGraph: { defaultCreativeMaster: 'cm-only', segments: [] }, ad: { adId: 'ad-static', title: 'Static hero' } }),
      );
      const got = await read(created.body.campaignId);
      expect(got.body).toMatchObject({ ad: { adId: 'ad-static', title: 'Static hero', dynamic: false }, decisionGraph: { rulePriority: null, segments: [] } });
    });

    it('deletes with 200 and no body; the campaign is gone after', async () => {
      const id = (await create(campaignBody({ campaignName: 'Doomed' }))).body.campaignId;
      const deleted = await remove(id);
      expect(deleted.status).toBe(200);
      expect(deleted.text).toBe('');
      expectProblem(await read(id), 404, 'DYNAMIC_CAMPAIGN_NOT_FOUND');
      expectProblem(await remove(id), 404, 'DYNAMIC_CAMPAIGN_NOT_FOUND');
      expect((await list({ limit: 100 })).body.campaigns.map((c) => c.campaignId)).not.toContain(Number(id));
    });

    it("keeps each account's campaigns to itself: another account's ids are 404, an account outside the key is 404", async () => {
      const id = (await create(campaignBody({ campaignName: 'Private' }))).body.campaignId;
      expectProblem(await read(id, accountB), 404, 'DYNAMIC_CAMPAIGN_NOT_FOUND');
      expectProblem(await remove(id, accountB), 404, 'DYNAMIC_CAMPAIGN_NOT_FOUND');
      expect((await list({}, accountB)).body.campaigns).toEqual([]);
      expectProblem(await list({}, foreignAccount), 404, 'ACCOUNT_NOT_FOUND');
      expectProblem(await create(campaignBody(), foreignAccount), 404, 'ACCOUNT_NOT_FOUND');
      expect((await read(id)).status).toBe(200);
    });

    it('gates reads with DynamicCampaigns_View and writes with DynamicCampaigns_Edit; Campaigns_Create does not reach them', async () => {
      const id = (await create(campaignBody())).body.campaignId;
      expect((await list({}, accountA, viewKey)).status).toBe(200);
      expect((await read(id, accountA, viewKey)).status).toBe(200);
      const denied = await create(campaignBody(), accountA, viewKey);
      expectProblem(denied, 403, 'PERMISSION_DENIED');
      expect(denied.body.requiredPermission).toBe('DynamicCampaigns_Edit');
      expectProblem(await remove(id, accountA, viewKey), 403, 'PERMISSION_DENIED');
      expectProblem(await list({}, accountA, exportKey), 403, 'PERMISSION_DENIED');
      expectProblem(await create(campaignBody(), accountA, exportKey), 403, 'PERMISSION_DENIED');
      expect((await read(id)).status).toBe(200);
    });

    it('pages the list in id order with "" at the ends and links that work', async () => {
      const account = accountB;
      const ids: number[] = [];
      for (const name of ['p1', 'p2', 'p3']) ids.push(Number((await create(campaignBody({ campaignName: name }), account)).body.campaignId));
      const first = await list({ offset: 0, limit: 2 }, account);
      expect(first.body.campaigns.map((c) => c.campaignId)).toEqual(ids.slice(0, 2));
      expect(first.body.previous).toBe('');
      const second = await http<CampaignPage>('GET', first.body.next, { key: fullKey });
      expect(second.body.campaigns.map((c) => c.campaignId)).toEqual(ids.slice(2));
      expect(second.body.next).toBe('');
      expect(second.body.previous).toBe(`${system.baseUrl}${campaignsPath(account)}?offset=0&limit=2`);
      expectProblem(await list({ limit: 0 }, account), 400, 'VALIDATION_FAILED');
    });

    it('stores asset and decision maps naming sources and columns of the account (asked of asset-sources)', async () => {
      const assetMap = [{ assetId: 'heroImage', assetSourceId: sourceOfA, assetSourceColumn: 'imageUrl' }];
      const decisionMap = [{ assetSourceId: sourceOfA, dataSignalService: 3, dataSignalProperty: 'condition' }];
      const created = await create(campaignBody({ assetMap, decisionMap }));
      expect(created.status).toBe(201);
      expect((await read(created.body.campaignId)).body).toMatchObject({ assetMap, decisionMap });
    });

    it('takes the ids the interface leaves untyped as integers or digit strings, and answers them as integers', async () => {
      const expression = { dataSignalServiceId: '3', dataSignalPropertyId: 'temperature', operator: 'greater-than', value: 20 };
      const created = await create(
        campaignBody({
          assetMap: [{ assetId: 'heroImage', assetSourceId: String(sourceOfA), assetSourceColumn: 'imageUrl' }],
          decisionMap: [{ assetSourceId: String(sourceOfA), dataSignalService: '3', dataSignalProperty: 'condition' }],
          decisionGraph: {
            defaultCreativeMaster: 'cm',
            segments: [{ name: 'Warm', creativeMasters: ['cm-sun'], condition: { operator: 'and', expressions: [expression] } }],
          },
        }),
      );
      expect(created.status).toBe(201);
      const stored = (await read(created.body.campaignId)).body;
      expect(stored).toMatchObject({
        assetMap: [{ assetSourceId: sourceOfA }],
        decisionMap: [{ assetSourceId: sourceOfA, dataSignalService: 3 }],
        decisionGraph: { segments: [{ condition: { expressions: [{ dataSignalServiceId: 3 }] } }] },
      });
    });

    describe('refuses, storing nothing', () => {
      const refusedWith = async (body: unknown, expected: string[]) => {
        const before = (await list({ limit: 100 })).body.campaigns.length;
        const result = await create(body);
        expectProblem(result, 400, 'VALIDATION_FAILED');
        expect(errorsOf(result)).toEqual(expected);
        expect((await list({ limit: 100 })).body.campaigns.length).toBe(before);
      };
      const segment = campaignBody().decisionGraph.segments[0];
      const withExpression = (expression: Record<string, unknown>) =>
        campaignBody({
          decisionGraph: { defaultCreativeMaster: 'cm', segments: [{ ...segment, condition: { operator: 'and', expressions: [expression] } }] },
        });
      const at = '/decisionGraph/segments/0/condition/expressions/0';

      it('an untyped id spelled other than as plain decimal digits', () =>
        refusedWith(campaignBody({ decisionMap: [{ assetSourceId: '+1', dataSignalService: '03', dataSignalProperty: 'condition' }] }), [
          '/decisionMap/0/assetSourceId INVALID_FORMAT',
          '/decisionMap/0/dataSignalService INVALID_FORMAT',
        ]));

      it('an expression naming a data signal outside the catalog', () =>
        refusedWith(withExpression({ dataSignalServiceId: 99, dataSignalPropertyId: 'country', operator: 'EQUALS', value: 'US' }), [
          `${at}/dataSignalServiceId UNKNOWN_DATA_SIGNAL`,
        ]));

      it('an expression naming a property the signal lacks', () =>
        refusedWith(withExpression({ dataSignalServiceId: 4, dataSignalPropertyId: 'browser', operator: 'EQUALS', value: 'x' }), [
          `${at}/dataSignalPropertyId UNKNOWN_DATA_SIGNAL_PROPERTY`,
        ]));

      it('an operator the property does not allow', () =>
        refusedWith(withExpression({ dataSignalServiceId: 1, dataSignalPropertyId: 'country', operator: 'less-than', value: 'US' }), [
          `${at}/operator OPERATOR_NOT_ALLOWED`,
        ]));

      it('an operand of the wrong type for the property or operator', async () => {
        await refusedWith(withExpression({ dataSignalServiceId: 2, dataSignalPropertyId: 'hourOfDay', operator: 'EQUALS', value: 'noon' }), [
          `${at}/value INVALID_VALUE`,
        ]);
        await refusedWith(withExpression({ dataSignalServiceId: 1, dataSignalPropertyId: 'country', operator: 'IN', value: 'US' }), [
          `${at}/value INVALID_VALUE`,
        ]);
      });

      it('a decision map naming an unknown data signal or property', () =>
        refusedWith(
          campaignBody({
            decisionMap: [
              { assetSourceId: 1, dataSignalService: 77, dataSignalProperty: 'country' },
              { assetSourceId: 1, dataSignalService: 1, dataSignalProperty: 'galaxy' },
            ],
          }),
          ['/decisionMap/0/dataSignalService UNKNOWN_DATA_SIGNAL', '/decisionMap/1/dataSignalProperty UNKNOWN_DATA_SIGNAL_PROPERTY'],
        ));

      it('an asset-map column the source lacks', () =>
        refusedWith(campaignBody({ assetMap: [{ assetId: 'hero', assetSourceId: sourceOfA, assetSourceColumn: 'price' }] }), [
          '/assetMap/0/assetSourceColumn UNKNOWN_COLUMN',
        ]));

      it("asset sources that do not exist or are another account's", () =>
        refusedWith(
          campaignBody({
            assetMap: [
              { assetId: 'hero', assetSourceId: sourceOfB, assetSourceColumn: 'imageUrl' },
              { assetId: 'logo', assetSourceId: 9_999_999, assetSourceColumn: 'imageUrl' },
            ],
            decisionMap: [{ assetSourceId: sourceOfB, dataSignalService: 1, dataSignalProperty: 'country' }],
          }),
          [
            '/assetMap/0/assetSourceId UNKNOWN_ASSET_SOURCE',
            '/assetMap/1/assetSourceId UNKNOWN_ASSET_SOURCE',
            '/decisionMap/0/assetSourceId UNKNOWN_ASSET_SOURCE',
          ],
        ));

      it('a segment with no creative masters', () =>
        refusedWith(campaignBody({ decisionGraph: { defaultCreativeMaster: 'cm', segments: [{ ...segment, creativeMasters: [] }] } }), [
          '/decisionGraph/segments/0/creativeMasters TOO_FEW_ITEMS',
        ]));

      it('segments without a default creative master', async () => {
        await refusedWith(campaignBody({ decisionGraph: { segments: [segment] } }), ['/decisionGraph/defaultCreativeMaster REQUIRED']);
        await refusedWith(campaignBody({ decisionGraph: { defaultCreativeMaster: null, segments: [segment] } }), [
          '/decisionGraph/defaultCreativeMaster REQUIRED',
        ]);
      });

      it('two segments with one name', () =>
        refusedWith(campaignBody({ decisionGraph: { defaultCreativeMaster: 'cm', segments: [segment, segment] } }), [
          '/decisionGraph/segments/1/name DUPLICATE',
        ]));

      it('an unknown rule priority or condition operator', () =>
        refusedWith(
          campaignBody({
            decisionGraph: {
              defaultCreativeMaster: 'cm',
              rulePriority: 'RANDOM',
              segments: [{ ...segment, condition: { ...segment.condition, operator: 'xor' } }],
            },
          }),
          ['/decisionGraph/rulePriority NOT_ALLOWED', '/decisionGraph/segments/0/condition/operator NOT_ALLOWED'],
        ));

      it('a missing or blank name, a URL that is not http(s), unknown fields and unbounded lists', async () => {
        const withoutName: Record<string, unknown> = campaignBody();
        delete withoutName.campaignName;
        await refusedWith(withoutName, ['/campaignName REQUIRED']);
        await refusedWith(campaignBody({ campaignName: '   ' }), ['/campaignName REQUIRED']);
        await refusedWith(campaignBody({ defaultURL: 'ftp://files.example.com/x' }), ['/defaultURL INVALID_FORMAT']);
        await refusedWith(campaignBody({ colour: 'red' }), ['/colour UNKNOWN_FIELD']);
        await refusedWith(campaignBody({ campaignName: 'x'.repeat(201) }), ['/campaignName TOO_LONG']);
        const many = Array.from({ length: 101 }, (_, i) => ({ assetId: `a${i}`, assetSourceId: 1, assetSourceColumn: 'c' }));
        await refusedWith(campaignBody({ assetMap: many }), ['/assetMap TOO_MANY_ITEMS']);
      });

      it('a campaign id that is not a plain integer in the path', async () => {
        const result = await http('GET', `${campaignsPath(accountA)}/1e3`, { key: fullKey });
        expectProblem(result, 400, 'VALIDATION_FAILED');
        expect(result.body.errors).toEqual([expect.objectContaining({ parameter: 'campaignId', code: 'INVALID_FORMAT' })]);
      });
    });
  });

  describe('decision explain', () => {
    const explain = (id: number | string, body: unknown, account = accountA, key = fullKey) =>
      exchange(
        api(key).POST('/v2/accounts/{accountId}/campaigns/{campaignId}/decisions/explain', {
          params: { path: { accountId: account, campaignId: Number(id) } },
          body: body as JsonBody<'explainDecision'>,
        }),
      );
    const rainSegment = {
      name: 'Rain',
      creativeMasters: ['cm-umbrella'],
      condition: { operator: 'or', expressions: [{ dataSignalServiceId: 3, dataSignalPropertyId: 'condition', operator: 'EQUALS', value: 'rain' }] },
    };
    let campaignId: string;

    beforeAll(async () => {
      const graph = { ...campaignBody().decisionGraph, rulePriority: 'PRIORITY', segments: [...campaignBody().decisionGraph.segments, rainSegment] };
      campaignId = (await create(campaignBody({ decisionGraph: graph }))).body.campaignId;
    });

    it('names the served master and segment, and each expression outcome', async () => {
      const result = await explain(campaignId, {
        signals: [
          { dataSignalServiceId: 3, dataSignalPropertyId: 'temperature', value: 26 },
          { dataSignalServiceId: 2, dataSignalPropertyId: 'dayOfWeek', value: 'SUNDAY' },
          { dataSignalServiceId: 3, dataSignalPropertyId: 'condition', value: 'clear' },
        ],
        requestId: 'req-1',
      });
      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({ matchedSegment: 'Warm weekend', usedDefault: false, rulePriority: 'PRIORITY' });
      expect(['cm-sun', 'cm-beach']).toContain(result.body.creativeMaster);
      expect(result.body.segments.map((s) => [s.name, s.matched, s.expressions.map((e) => e.reason)])).toEqual([
        ['Warm weekend', true, [null, null]],
        ['Rain', false, ['OPERATOR_FALSE']],
      ]);
    });

    it('says why nothing matched (missing signal, wrong type, operator false) and that the default served', async () => {
      const result = await explain(campaignId, {
        signals: [
          { dataSignalServiceId: 3, dataSignalPropertyId: 'temperature', value: 'hot' },
          { dataSignalServiceId: 3, dataSignalPropertyId: 'condition', value: 'snow' },
        ],
      });
      expect(result.body).toMatchObject({ creativeMaster: 'cm-default', matchedSegment: null, usedDefault: true });
      expect(result.body.segments[0].expressions.map((e) => [e.dataSignalPropertyId, e.signalValue, e.outcome, e.reason])).toEqual([
        ['temperature', 'hot', false, 'WRONG_TYPE'],
        ['dayOfWeek', null, false, 'MISSING_SIGNAL'],
      ]);
      expect(result.body.segments[1].expressions[0]).toMatchObject({ signalValue: 'snow', outcome: false, reason: 'OPERATOR_FALSE' });
    });

    it('answers no ad when nothing matches and the campaign has no default, and rotates deterministically per request id', async () => {
      const noAd = (await create(campaignBody({ decisionGraph: { defaultCreativeMaster: null, segments: [] } }))).body.campaignId;
      expect((await explain(noAd, { signals: [] })).body).toEqual({
        creativeMaster: null,
        matchedSegment: null,
        usedDefault: false,
        rulePriority: null,
        segments: [],
      });

      const rotatingId = (
        await create(
          campaignBody({
            decisionGraph: {
              defaultCreativeMaster: 'dry',
              rulePriority: 'EQUAL_ROTATION',
              segments: [
                { ...rainSegment, name: 'Rain A', creativeMasters: ['a1', 'a2'] },
                { ...rainSegment, name: 'Rain B', creativeMasters: ['b1'] },
              ],
            },
          }),
        )
      ).body.campaignId;
      const rain = { signals: [{ dataSignalServiceId: 3, dataSignalPropertyId: 'condition', value: 'rain' }] };
      const served = new Set<string>();
      for (let i = 0; i < 40; i++) {
        const first = await explain(rotatingId, { ...rain, requestId: `r-${i}` });
        const again = await explain(rotatingId, { ...rain, requestId: `r-${i}` });
        expect(again.body.creativeMaster).toBe(first.body.creativeMaster);
        served.add(`${String(first.body.matchedSegment)}/${String(first.body.creativeMaster)}`);
      }
      expect([...served].sort()).toEqual(['Rain A/a1', 'Rain A/a2', 'Rain B/b1']);
    });

    it("needs DynamicCampaigns_View, the account's own campaign, and bounded signals", async () => {
      expect((await explain(campaignId, { signals: [] }, accountA, viewKey)).status).toBe(200);
      expectProblem(await explain(campaignId, { signals: [] }, accountA, exportKey), 403, 'PERMISSION_DENIED');
      expectProblem(await explain(campaignId, { signals: [] }, accountB), 404, 'DYNAMIC_CAMPAIGN_NOT_FOUND');
      const tooMany = Array.from({ length: 51 }, (_, i) => ({ dataSignalServiceId: 1, dataSignalPropertyId: `p${i}`, value: 'x' }));
      const refused = await explain(campaignId, { signals: tooMany });
      expectProblem(refused, 400, 'VALIDATION_FAILED');
      expect(errorsOf(refused)).toEqual(['/signals TOO_MANY_ITEMS']);
      const duplicate = await explain(campaignId, {
        signals: [
          { dataSignalServiceId: 1, dataSignalPropertyId: 'country', value: 'US' },
          { dataSignalServiceId: 1, dataSignalPropertyId: 'country', value: 'DE' },
        ],
      });
      expect(errorsOf(duplicate)).toEqual(['/signals/1 DUPLICATE']);
    });
  });
});
