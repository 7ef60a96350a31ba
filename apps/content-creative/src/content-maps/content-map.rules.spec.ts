import type { CampaignFacts, ContentMapInput, PlanFacts } from './content-map.model';
import { contentMapFactErrors, contentMapShapeErrors, lookupColumn, missingValueErrors } from './content-map.rules';

const pointers = (errors: { code: string }[]) => errors.map((e) => `${'pointer' in e ? String(e.pointer) : ''} ${e.code}`);

const map = (contentType: string, entries: ContentMapInput['adGroupPlacementCreativeMap'], dataServiceId?: number): ContentMapInput => ({
  contentType,
  dataServiceId,
  adGroupPlacementCreativeMap: entries,
});

const facts = { retailCampaignId: 1, campaignName: 'c', status: 'ACTIVE', templateIdx: null };
const plain: CampaignFacts = { ...facts, isAdGroupCampaign: false, isSbt: false, adGroups: [] };
const grouped: CampaignFacts = { ...facts, isAdGroupCampaign: true, isSbt: false, adGroups: [{ adGroupId: 7, adGroupName: 'Dairy' }] };
const plan = (kind: string): PlanFacts => ({
  retailCampaignId: 1,
  placements: [
    { placementId: 31, placementName: 'Home', dimension: '300x250', adServerKind: kind },
    { placementId: 32, placementName: 'Search', dimension: '728x90', adServerKind: kind },
  ],
});

describe('content map rules', () => {
  it('refuses an unknown content type, malformed and duplicate ids, blank values and content under All', () => {
    expect(
      pointers(
        contentMapShapeErrors(
          map('Everything', [
            { adGroupId: 'x', placementCreativeMap: [{ placementId: '31', content: ['a', ' '] }] },
            {
              adGroupId: '7',
              placementCreativeMap: [
                { placementId: '31', content: [] },
                { placementId: '31', content: [] },
                { placementId: '0', content: [] },
              ],
            },
            { adGroupId: '7', placementCreativeMap: [] },
          ]),
        ),
      ),
    ).toEqual([
      '/contentType NOT_ALLOWED',
      '/adGroupPlacementCreativeMap/0/adGroupId INVALID_FORMAT',
      '/adGroupPlacementCreativeMap/0/placementCreativeMap/0/content/1 REQUIRED',
      '/adGroupPlacementCreativeMap/1/placementCreativeMap/1/placementId DUPLICATE',
      '/adGroupPlacementCreativeMap/1/placementCreativeMap/2/placementId INVALID_FORMAT',
      '/adGroupPlacementCreativeMap/2/adGroupId DUPLICATE',
    ]);
    expect(pointers(contentMapShapeErrors(map('All', [{ adGroupId: '', placementCreativeMap: [{ placementId: '31', content: ['SKU-1'] }] }])))).toEqual([
      '/adGroupPlacementCreativeMap/0/placementCreativeMap/0/content MUST_BE_EMPTY',
    ]);
    expect(contentMapShapeErrors(map('All', [{ adGroupId: '', placementCreativeMap: [{ placementId: '31', content: [] }] }]))).toEqual([]);
  });

  it('needs placements of the plan, ad groups of the campaign, and no ad group id for a campaign without ad groups', () => {
    expect(
      pointers(
        contentMapFactErrors(
          map('Product', [
            { adGroupId: '7', placementCreativeMap: [{ placementId: '99', content: ['a'] }] },
            { adGroupId: '8', placementCreativeMap: [{ placementId: '31', content: ['a'] }] },
          ]),
          grouped,
          plan('display'),
        ),
      ),
    ).toEqual([
      '/adGroupPlacementCreativeMap/0/placementCreativeMap/0/placementId PLACEMENT_NOT_IN_MEDIA_PLAN',
      '/adGroupPlacementCreativeMap/1/adGroupId AD_GROUP_NOT_IN_CAMPAIGN',
    ]);
    expect(pointers(contentMapFactErrors(map('Product', [{ adGroupId: '7', placementCreativeMap: [] }]), plain, plan('display')))).toEqual([
      '/adGroupPlacementCreativeMap/0/adGroupId AD_GROUP_NOT_IN_CAMPAIGN',
    ]);
    expect(
      contentMapFactErrors(map('Product', [{ adGroupId: '', placementCreativeMap: [{ placementId: '32', content: ['a'] }] }]), plain, plan('display')),
    ).toEqual([]);
  });

  it('allows All only on social placements of a campaign that is not SBT', () => {
    const all = map('All', [{ adGroupId: '', placementCreativeMap: [{ placementId: '31', content: [] }] }]);
    expect(contentMapFactErrors(all, plain, plan('social'))).toEqual([]);
    expect(pointers(contentMapFactErrors(all, plain, plan('display')))).toEqual([
      '/adGroupPlacementCreativeMap/0/placementCreativeMap/0/placementId CONTENT_TYPE_NOT_ALLOWED',
    ]);
    expect(pointers(contentMapFactErrors(all, { ...plain, isSbt: true }, plan('social')))).toEqual(['/contentType CONTENT_TYPE_NOT_ALLOWED']);
  });

  it('looks values up in the column of their content type; creatives are not looked up', () => {
    expect(lookupColumn('Product', { assetKeyColumn: 'gtin' })).toBe('gtin');
    expect(lookupColumn('Product', {})).toBe('sku');
    expect(lookupColumn('Sub-category', {})).toBe('subCategory');
    expect(lookupColumn('Creatives', {})).toBeNull();
    expect(lookupColumn('All', {})).toBeNull();
  });

  it('points at each value the source lacks', () => {
    const input = map('Product', [{ adGroupId: '', placementCreativeMap: [{ placementId: '31', content: ['SKU-1', 'SKU-404'] }] }]);
    expect(pointers(missingValueErrors(input, new Set(['SKU-1']), 'sku'))).toEqual([
      '/adGroupPlacementCreativeMap/0/placementCreativeMap/0/content/1 NOT_IN_ASSET_SOURCE',
    ]);
  });
});
