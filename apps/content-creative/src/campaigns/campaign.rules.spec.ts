import type { CampaignInput } from './campaign.model';
import { assetReferenceErrors, namedAssetSources } from './campaign.rules';

const input = (assetMap: CampaignInput['assetMap'], decisionMap: CampaignInput['decisionMap']): CampaignInput => ({
  campaignName: 'c',
  defaultURL: 'https://example.com',
  assetMap,
  decisionMap,
  decisionGraph: { defaultCreativeMaster: null, rulePriority: null, segments: [] },
  ad: { adId: 'a' },
});

describe('asset references of a campaign', () => {
  const campaign = input(
    [
      { assetId: 'hero', assetSourceId: 11, assetSourceColumn: 'imageUrl' },
      { assetId: 'price', assetSourceId: 11, assetSourceColumn: 'price' },
      { assetId: 'logo', assetSourceId: 12, assetSourceColumn: 'logo' },
    ],
    [
      { assetSourceId: 13, dataSignalService: 1, dataSignalProperty: 'country' },
      { assetSourceId: 11, dataSignalService: 1, dataSignalProperty: 'city' },
    ],
  );

  it('names each source once, in first-use order', () => {
    expect(namedAssetSources(campaign)).toEqual([11, 12, 13]);
  });

  it('refuses sources the account lacks and asset-map columns the source lacks, naming each entry', () => {
    const errors = assetReferenceErrors(campaign, [{ assetSourceId: 11, columnNames: ['sku', 'imageUrl'] }]);
    expect(errors.map((e) => ('pointer' in e ? `${e.pointer} ${e.code}` : ''))).toEqual([
      '/assetMap/1/assetSourceColumn UNKNOWN_COLUMN',
      '/assetMap/2/assetSourceId UNKNOWN_ASSET_SOURCE',
      '/decisionMap/0/assetSourceId UNKNOWN_ASSET_SOURCE',
    ]);
  });

  it('accepts a campaign whose every source and column exists', () => {
    expect(
      assetReferenceErrors(campaign, [
        { assetSourceId: 11, columnNames: ['imageUrl', 'price'] },
        { assetSourceId: 12, columnNames: ['logo'] },
        { assetSourceId: 13, columnNames: [] },
      ]),
    ).toEqual([]);
  });
});
