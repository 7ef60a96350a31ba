import { Type } from '@sinclair/typebox';
import { AD_GROUP_NAME_MAX, PERMISSIONS } from '@contracts/domain';
import { PathParams, AccountId, BoundedString, Idx } from './common.schemas';
import { defineRoute } from './route.types';

const TAG = 'channels-plans';

const CampaignPath = PathParams({ accountId: AccountId, retailCampaignIdx: Idx });

const AdGroupInfo = Type.Object({ adGroupId: Type.String(), adGroupName: Type.String() });

/** Ad groups of a retail campaign, and the media plans (sites and placements on ad servers) built for it. */
export const mediaPlanRoutes = [
  defineRoute({
    operationId: 'createAdGroup',
    method: 'post',
    path: '/v2/accounts/:accountId/retail-campaigns/:retailCampaignIdx/ad-groups',
    tag: TAG,
    summary: 'Create an ad group in an ad-group retail campaign',
    description:
      'Only a campaign created with isAdGroupCampaign true holds ad groups; any other campaign answers 409 RETAIL_CAMPAIGN_NOT_AD_GROUP_CAMPAIGN. ' +
      'Names are trimmed and unique within the campaign: a taken name answers 409 AD_GROUP_NAME_TAKEN.',
    permission: PERMISSIONS.mediaPlanTagsCreate,
    scope: { account: 'accountId' },
    extension: true,
    params: CampaignPath,
    body: Type.Object({ adGroupName: BoundedString(AD_GROUP_NAME_MAX, { minLength: 1 }) }, { additionalProperties: false }),
    success: { status: 201, description: 'Created', schema: Type.Object({ adGroupId: Type.String() }) },
    problems: [409],
    example: { params: { accountId: 1001, retailCampaignIdx: 310 }, request: { adGroupName: 'Breakfast cereals' }, response: { adGroupId: '5120' } },
    async handle({ params, body, backends }) {
      const result = await backends.channelsPlans.createAdGroup({
        accountId: params.accountId,
        retailCampaignId: params.retailCampaignIdx,
        adGroupName: body.adGroupName,
      });
      return { status: 201, body: { adGroupId: String(result.adGroupId) } };
    },
  }),

  defineRoute({
    operationId: 'listAdGroups',
    method: 'get',
    path: '/v2/accounts/:accountId/retail-campaigns/:retailCampaignIdx/ad-groups',
    tag: TAG,
    summary: 'List the ad groups of a retail campaign',
    description: 'In creation order. A campaign that is not an ad-group campaign has none.',
    permission: PERMISSIONS.mediaPlanTagsCreate,
    scope: { account: 'accountId' },
    params: CampaignPath,
    success: { status: 200, description: 'The ad groups', schema: Type.Object({ adGroupDetails: Type.Array(AdGroupInfo) }) },
    example: {
      params: { accountId: 1001, retailCampaignIdx: 310 },
      response: { adGroupDetails: [{ adGroupId: '5120', adGroupName: 'Breakfast cereals' }] },
    },
    async handle({ params, backends }) {
      const result = await backends.channelsPlans.listAdGroups({ accountId: params.accountId, retailCampaignId: params.retailCampaignIdx });
      return { body: { adGroupDetails: result.adGroups.map((g) => ({ adGroupId: String(g.adGroupId), adGroupName: g.adGroupName })) } };
    },
  }),
];
