import { Type } from '@sinclair/typebox';
import {
  AD_GROUP_NAME_MAX,
  AUTO_MEDIA_PLAN_DIMENSIONS_MAX,
  DIMENSION_MAX_LENGTH,
  DIMENSION_PATTERN,
  MEDIA_PLAN_FIELDS,
  MEDIA_PLAN_FIELDS_PARAM_MAX,
  CHANNELS_PLANS_ACCESS,
} from '@contracts/domain';
import { channelsPlansV1 as v1 } from '@contracts/proto';
import { PageQuery } from '../http/pagination';
import { PathParams, AccountId, BoundedString, Idx, Int64, Nullable } from './common.schemas';
import { AdServerParamsSchema, EXAMPLE_PLACEMENT, PlacementSchema, presentAdServer } from './placement.routes';
import { defineRoute } from './route.types';

const TAG = 'channels-plans';

const CampaignPath = PathParams({ accountId: AccountId, retailCampaignIdx: Idx });

const AccountPath = PathParams({ accountId: AccountId });
const PlanPath = PathParams({ accountId: AccountId, mediaPlanId: Int64({ minimum: 1, description: 'Media plan id' }) });

const MediaPlanV2 = Type.Object({
  mediaPlanId: Type.Optional(Type.Integer()),
  mediaPlanName: Type.Optional(Type.String()),
  adServers: Type.Optional(
    Type.Array(Type.Object({ adServerName: Nullable(Type.String()), adServerParams: AdServerParamsSchema, placements: Type.Array(PlacementSchema) })),
  ),
});

const presentMediaPlan = (plan: v1.GetMediaPlanResponse) => ({
  ...(plan.mediaPlanId !== undefined && { mediaPlanId: plan.mediaPlanId }),
  ...(plan.mediaPlanName !== undefined && { mediaPlanName: plan.mediaPlanName }),
  ...(plan.adServersSelected && { adServers: plan.adServers.map(presentAdServer) }),
});

const EXAMPLE_PLAN = {
  mediaPlanId: 8801,
  mediaPlanName: 'Spring sale - Acme GAM',
  adServers: [{ adServerName: 'Google Ad Manager', adServerParams: { adServerId: 'gam', kind: 'display' }, placements: [EXAMPLE_PLACEMENT] }],
};

const AutoPlanAnswer = Type.Object({ mediaPlanId: Type.Integer(), msg: Type.String() });

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
    permission: CHANNELS_PLANS_ACCESS.createAdGroup,
    scope: { account: 'accountId' },
    extension: true,
    params: CampaignPath,
    body: Type.Object({ adGroupName: BoundedString(AD_GROUP_NAME_MAX, { minLength: 1 }) }, { additionalProperties: false }),
    success: { status: 201, description: 'Created', schema: Type.Object({ adGroupId: Type.String() }) },
    problems: ['RETAIL_CAMPAIGN_NOT_FOUND', 'RETAIL_CAMPAIGN_NOT_AD_GROUP_CAMPAIGN', 'AD_GROUP_NAME_TAKEN'],
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
    permission: CHANNELS_PLANS_ACCESS.listAdGroups,
    scope: { account: 'accountId' },
    params: CampaignPath,
    success: { status: 200, description: 'The ad groups', schema: Type.Object({ adGroupDetails: Type.Array(AdGroupInfo) }) },
    problems: ['RETAIL_CAMPAIGN_NOT_FOUND'],
    example: {
      params: { accountId: 1001, retailCampaignIdx: 310 },
      response: { adGroupDetails: [{ adGroupId: '5120', adGroupName: 'Breakfast cereals' }] },
    },
    async handle({ params, backends }) {
      const result = await backends.channelsPlans.listAdGroups({ accountId: params.accountId, retailCampaignId: params.retailCampaignIdx });
      return { body: { adGroupDetails: result.adGroups.map((g) => ({ adGroupId: String(g.adGroupId), adGroupName: g.adGroupName })) } };
    },
  }),

  defineRoute({
    operationId: 'createAutoMediaPlan',
    method: 'post',
    path: '/v2/accounts/:accountId/media-plans/auto',
    tag: TAG,
    summary: 'Create a media plan from a list of dimensions',
    description:
      "Builds a plan of the retail campaign on the media channel: one site on the channel's ad server and one placement per distinct dimension. " +
      "Every dimension must be in the organization's dimension whitelist; one outside it answers 400 DIMENSION_NOT_WHITELISTED pointing at /dimensions/<index>. " +
      'A campaign outside the account, or a channel that is not a live channel of the organization, answers 404. ' +
      "Idempotent: a request for the same campaign, channel and set of distinct dimensions (in any order, duplicates ignored) as an existing auto plan answers 200 with that plan's mediaPlanId and creates nothing; " +
      'a different set creates a new plan (201). The plan, its site and its placements are written together or not at all.',
    permission: CHANNELS_PLANS_ACCESS.createAutoMediaPlan,
    scope: { account: 'accountId' },
    params: AccountPath,
    body: Type.Object(
      {
        dimensions: Type.Array(BoundedString(DIMENSION_MAX_LENGTH, { pattern: DIMENSION_PATTERN, description: '<width>x<height>' }), {
          minItems: 1,
          maxItems: AUTO_MEDIA_PLAN_DIMENSIONS_MAX,
        }),
        retailCampaignId: Int64({ minimum: 1 }),
        mediaChannelIdx: Int64({ minimum: 1 }),
      },
      { additionalProperties: false },
    ),
    success: {
      status: 201,
      description: 'Created',
      schema: AutoPlanAnswer,
      alternatives: [{ status: 200, description: 'The campaign already has an auto plan on the channel for these dimensions: its id' }],
    },
    problems: ['RETAIL_CAMPAIGN_NOT_FOUND', 'MEDIA_CHANNEL_NOT_FOUND'],
    example: {
      params: { accountId: 1001 },
      request: { dimensions: ['300x250', '728x90'], retailCampaignId: 310, mediaChannelIdx: 42 },
      response: { mediaPlanId: 8801, msg: 'Media plan created successfully.' },
    },
    async handle({ params, body, backends }) {
      const result = await backends.channelsPlans.createAutoMediaPlan({
        accountId: params.accountId,
        retailCampaignId: body.retailCampaignId,
        mediaChannelIdx: body.mediaChannelIdx,
        dimensions: body.dimensions,
      });
      return result.created
        ? { status: 201, body: { mediaPlanId: result.mediaPlanId, msg: 'Media plan created successfully.' } }
        : { status: 200, body: { mediaPlanId: result.mediaPlanId, msg: 'Media plan already exists for this campaign, channel and dimensions.' } };
    },
  }),

  defineRoute({
    operationId: 'getMediaPlan',
    method: 'get',
    path: '/v2/accounts/:accountId/media-plans/:mediaPlanId',
    tag: TAG,
    summary: 'Read a media plan (MediaPlanV2)',
    description:
      `fields: comma-separated top-level names to include (${MEDIA_PLAN_FIELDS.join(', ')}); absent or empty means all, an unknown name answers 400 naming it. ` +
      "offset/limit page over the plan's placements in id order; every ad server of the plan is listed with the placements of the page that are on it. " +
      'isTagPresent turns true once a tag is generated for the placement; additionalInfo.dspName is the ad server that serves it and params the ad-server parameters set on it (PATCH .../placement); ' +
      "adServerParams names the ad server's id (in GET /v2/ad-servers) and kind.",
    permission: CHANNELS_PLANS_ACCESS.getMediaPlan,
    scope: { account: 'accountId' },
    params: PlanPath,
    query: Type.Object(
      {
        fields: Type.Optional(
          BoundedString(MEDIA_PLAN_FIELDS_PARAM_MAX, { description: `Comma-separated top-level fields: ${MEDIA_PLAN_FIELDS.join(', ')}.` }),
        ),
        ...PageQuery.properties,
      },
      { additionalProperties: false },
    ),
    success: { status: 200, description: 'The media plan', schema: MediaPlanV2 },
    problems: ['MEDIA_PLAN_NOT_FOUND'],
    example: { params: { accountId: 1001, mediaPlanId: 8801 }, query: { offset: 0, limit: 25 }, response: EXAMPLE_PLAN },
    async handle({ params, query, backends }) {
      const plan = await backends.channelsPlans.getMediaPlan({
        accountId: params.accountId,
        mediaPlanId: params.mediaPlanId,
        fields: query.fields === undefined ? [] : query.fields.split(','),
        page: { offset: query.offset, limit: query.limit },
      });
      return { body: presentMediaPlan(plan) };
    },
  }),
];
