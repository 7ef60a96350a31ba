import { openContentCreativeTestBed, rejectionOf, type ContentCreativeTestBed } from '../content-creative.test-support';
import type { AssetSourcesPeer } from '../peers/asset-sources.peer';
import type { CampaignInput } from './campaign.model';

jest.setTimeout(60_000);

/**
 * Campaigns that name no asset source: the asset-source rules are proven against the real
 * asset-sources service in the gateway's end-to-end spec. A directory that fails the test if asked
 * shows these campaigns never needed it.
 */
const noAssetSources: AssetSourcesPeer = {
  describe: () => Promise.reject(new Error('asset-sources must not be asked about a campaign that names no asset source')),
  findRows: () => Promise.reject(new Error('a campaign reads no asset rows')),
};

const campaign = (overrides: Partial<CampaignInput> = {}): CampaignInput => ({
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
  ad: { adId: 'ad-1' },
  ...overrides,
});

describe('CampaignService (real MariaDB)', () => {
  let bed: ContentCreativeTestBed;
  let nextAccount = 700;
  const freshAccount = () => nextAccount++;
  const pointers = async (promise: Promise<unknown>) => {
    const refused = await rejectionOf(promise);
    expect(refused).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    return (refused.errors as { pointer: string; code: string }[]).map((e) => `${e.pointer} ${e.code}`);
  };
  const stored = async (account: number) => (await bed.campaigns.list(account, { offset: 0, limit: 100 })).total;

  beforeAll(async () => {
    bed = await openContentCreativeTestBed('dc');
  });

  afterAll(async () => {
    await bed?.close();
  });

  it('stores a campaign and reads it back whole, for its own account only', async () => {
    const account = freshAccount();
    const id = await bed.campaigns.create(account, campaign({ campaignName: '  Spring  ' }), noAssetSources);
    const read = await bed.campaigns.get(account, id);
    expect(read).toMatchObject({
      campaignId: id,
      campaignName: 'Spring',
      defaultURL: 'https://shop.example.com/spring',
      ad: { adId: 'ad-1', title: 'Spring' },
      decisionGraph: campaign().decisionGraph,
    });
    expect(await rejectionOf(bed.campaigns.get(freshAccount(), id))).toMatchObject({ status: 404, code: 'DYNAMIC_CAMPAIGN_NOT_FOUND' });
  });

  it('lists an account campaigns in id order with the total', async () => {
    const account = freshAccount();
    const ids = [];
    for (const name of ['a', 'b', 'c']) ids.push(await bed.campaigns.create(account, campaign({ campaignName: name }), noAssetSources));
    const page = await bed.campaigns.list(account, { offset: 1, limit: 1 });
    expect(page).toEqual({ total: 3, items: [expect.objectContaining({ campaignId: ids[1], campaignName: 'b' })] });
    expect(await bed.campaigns.list(account, { offset: 5, limit: 1 })).toEqual({ total: 3, items: [] });
    expect((await bed.campaigns.list(freshAccount(), {})).total).toBe(0);
  });

  it('deletes only its own account campaign; a second delete is not found', async () => {
    const account = freshAccount();
    const id = await bed.campaigns.create(account, campaign(), noAssetSources);
    expect(await rejectionOf(bed.campaigns.delete(freshAccount(), id))).toMatchObject({ status: 404 });
    await bed.campaigns.delete(account, id);
    expect(await rejectionOf(bed.campaigns.get(account, id))).toMatchObject({ status: 404 });
    expect(await rejectionOf(bed.campaigns.delete(account, id))).toMatchObject({ status: 404, code: 'DYNAMIC_CAMPAIGN_NOT_FOUND' });
  });

  it('refuses expressions naming an unknown signal, an unknown property, an operator the property does not allow, or a mistyped value', async () => {
    const account = freshAccount();
    const base = campaign();
    const segment = base.decisionGraph.segments[0];
    const refused = await pointers(
      bed.campaigns.create(
        account,
        campaign({
          decisionGraph: {
            ...base.decisionGraph,
            segments: [
              {
                ...segment,
                condition: {
                  operator: 'and',
                  expressions: [
                    { dataSignalServiceId: 99, dataSignalPropertyId: 'country', operator: 'EQUALS', value: 'US' },
                    { dataSignalServiceId: 1, dataSignalPropertyId: 'altitude', operator: 'EQUALS', value: 'US' },
                    { dataSignalServiceId: 1, dataSignalPropertyId: 'country', operator: 'greater-than', value: 'US' },
                    { dataSignalServiceId: 2, dataSignalPropertyId: 'hourOfDay', operator: 'GREATER_THAN', value: 'noon' },
                    { dataSignalServiceId: 1, dataSignalPropertyId: 'country', operator: 'IN', value: [] },
                    { dataSignalServiceId: 3, dataSignalPropertyId: 'temperature', operator: 'BETWEEN', value: [30, 10] },
                    { dataSignalServiceId: 1, dataSignalPropertyId: 'postalCode', operator: 'starts-with', value: '94' },
                  ],
                },
              },
            ],
          },
        }),
        noAssetSources,
      ),
    );
    const at = '/decisionGraph/segments/0/condition/expressions';
    expect(refused).toEqual([
      `${at}/0/dataSignalServiceId UNKNOWN_DATA_SIGNAL`,
      `${at}/1/dataSignalPropertyId UNKNOWN_DATA_SIGNAL_PROPERTY`,
      `${at}/2/operator OPERATOR_NOT_ALLOWED`,
      `${at}/3/value INVALID_VALUE`,
      `${at}/4/value INVALID_VALUE`,
      `${at}/5/value INVALID_VALUE`,
    ]);
    expect(await stored(account)).toBe(0);
  });

  it('refuses a decision map naming an unknown signal or property', async () => {
    const account = freshAccount();
    const refused = await pointers(
      bed.campaigns.create(
        account,
        campaign({
          decisionMap: [
            { assetSourceId: 1, dataSignalService: 42, dataSignalProperty: 'country' },
            { assetSourceId: 1, dataSignalService: 4, dataSignalProperty: 'browser' },
          ],
        }),
        // Unsound requests are refused before asset-sources is asked.
        noAssetSources,
      ),
    );
    expect(refused).toEqual(['/decisionMap/0/dataSignalService UNKNOWN_DATA_SIGNAL', '/decisionMap/1/dataSignalProperty UNKNOWN_DATA_SIGNAL_PROPERTY']);
    expect(await stored(account)).toBe(0);
  });

  it('refuses a segment without creative masters or expressions, a duplicate segment name, and segments without a default creative master', async () => {
    const account = freshAccount();
    const segment = campaign().decisionGraph.segments[0];
    const refused = await pointers(
      bed.campaigns.create(
        account,
        campaign({
          decisionGraph: {
            defaultCreativeMaster: null,
            rulePriority: 'SOMETIMES',
            segments: [
              { ...segment, creativeMasters: [] },
              { ...segment, condition: { operator: 'xor', expressions: [] } },
            ],
          },
        }),
        noAssetSources,
      ),
    );
    expect(refused).toEqual([
      '/decisionGraph/rulePriority NOT_ALLOWED',
      '/decisionGraph/defaultCreativeMaster REQUIRED',
      '/decisionGraph/segments/0/creativeMasters REQUIRED',
      '/decisionGraph/segments/1/name DUPLICATE',
      '/decisionGraph/segments/1/condition/operator NOT_ALLOWED',
      '/decisionGraph/segments/1/condition/expressions REQUIRED',
    ]);
    expect(await stored(account)).toBe(0);
  });

  it('accepts a graph without segments and without a default creative master', async () => {
    const account = freshAccount();
    const id = await bed.campaigns.create(
      account,
      campaign({ decisionGraph: { defaultCreativeMaster: null, rulePriority: null, segments: [] } }),
      noAssetSources,
    );
    expect((await bed.campaigns.get(account, id)).decisionGraph).toEqual({ defaultCreativeMaster: null, rulePriority: null, segments: [] });
  });

  it('refuses a blank name, a non-http URL and a blank ad id', async () => {
    const account = freshAccount();
    const refused = await pointers(
      bed.campaigns.create(account, campaign({ campaignName: ' ', defaultURL: 'javascript:alert(1)', ad: { adId: '' } }), noAssetSources),
    );
    expect(refused).toEqual(['/campaignName REQUIRED', '/defaultURL INVALID_FORMAT', '/ad/adId REQUIRED']);
    expect(await stored(account)).toBe(0);
  });
});
