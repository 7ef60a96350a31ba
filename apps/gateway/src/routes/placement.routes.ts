import { Type } from '@sinclair/typebox';
import {
  AD_SERVER_ID_MAX,
  AD_SERVER_KINDS,
  DIMENSION_MAX_LENGTH,
  DIMENSION_PATTERN,
  MEDIA_PLAN_PLACEMENT_NAME_MAX,
  MEDIA_PLAN_SITE_NAME_MAX,
  CHANNELS_PLANS_ACCESS,
  PLACEMENT_ID_MAX_LENGTH,
  PLACEMENT_ID_PATTERN,
  fieldNamesOfKind,
  pickFieldInput,
  PLACEMENT_PARAM_FIELDS,
} from '@contracts/domain';
import { channelsPlansV1 as v1 } from '@contracts/proto';
import { AccountId, BoundedString, Int64, Nullable, PathParams } from './common.schemas';
import { fieldResponseSchema, fieldUpdateProperties } from './field-schemas';
import { defineRoute } from './route.types';

const TAG = 'channels-plans';

/** The interface names no permission for the placement operations: reads take MediaPlan_View, writes MediaPlan_Edit. */
const PERMISSION_NOTE = 'The interface names no permission for this operation; it is gated by ';

// ---- The one Placement view: the media plan read, the bulk-tag read, create and update all answer it. ----

/** The params as answered: every field of PLACEMENT_PARAM_FIELDS, each present only once set. */
const ParamsSchema = fieldResponseSchema(PLACEMENT_PARAM_FIELDS, {
  allOptional: true,
  description: 'The ad-server parameters set on the placement (PATCH .../placement); one never set is absent.',
});

export const PlacementSchema = Type.Object({
  placementId: Type.String(),
  placementName: Type.String(),
  siteIdx: Type.Integer(),
  siteName: Type.String(),
  dimension: Type.String({ description: '<width>x<height>' }),
  isTagPresent: Type.Boolean({ description: 'True once a tag has been generated for the placement.' }),
  additionalInfo: Type.Object({
    adUnitType: Type.String({ description: 'display (sized display units), in-stream-video (video ad servers) or dooh-screen (digital out of home).' }),
    dspName: Type.String({ description: 'The ad server that serves the placement.' }),
    params: ParamsSchema,
  }),
});

export const presentPlacement = (p: v1.Placement) => ({
  placementId: String(p.placementId),
  placementName: p.placementName,
  siteIdx: p.siteIdx,
  siteName: p.siteName,
  dimension: p.dimension,
  isTagPresent: p.isTagPresent,
  // The DSP that serves the placement is the ad server of its site.
  additionalInfo: { adUnitType: p.adUnitType, dspName: p.adServerName || p.adServerId, params: JSON.parse(p.paramsJson || '{}') as Record<string, unknown> },
});

/** The ad server an adServers entry is about: its catalog id (what tag requests name as adServerId) and kind. */
export const AdServerParamsSchema = Type.Object(
  { adServerId: Type.String(), kind: Type.Unsafe<string>({ type: 'string', enum: [...AD_SERVER_KINDS] }) },
  { description: 'The ad server of this entry: its id in GET /v2/ad-servers (the adServerId tag requests take) and its kind.' },
);

export const presentAdServer = (a: v1.MediaPlanAdServer) => ({
  adServerName: a.adServerName ?? null,
  adServerParams: { adServerId: a.adServerId, kind: a.adServerKind },
  placements: a.placements.map(presentPlacement),
});

export const EXAMPLE_PLACEMENT = {
  placementId: '44010',
  placementName: '300x250 - Acme GAM',
  siteIdx: 9120,
  siteName: 'Acme GAM',
  dimension: '300x250',
  isTagPresent: false,
  additionalInfo: { adUnitType: 'display', dspName: 'Google Ad Manager', params: { adChoices: true, gdprConsentMacro: '${GDPR_CONSENT_755}' } },
};

// ---- Requests ----

const PlacementId = BoundedString(PLACEMENT_ID_MAX_LENGTH, {
  pattern: PLACEMENT_ID_PATTERN,
  description: 'Placement id: decimal digits, no leading zero (at most 15).',
});
const PlanId = Int64({ minimum: 1, description: 'Media plan id' });
const CampaignId = Int64({ minimum: 1, description: 'Retail campaign id; the media plan must be one of its plans' });
const PlanPath = PathParams({ accountId: AccountId, mediaPlanId: PlanId });
const PlanOfCampaignPath = PathParams({ accountId: AccountId, mediaPlanId: PlanId, campaignId: CampaignId });

const Writable = {
  placementName: BoundedString(MEDIA_PLAN_PLACEMENT_NAME_MAX, { minLength: 1, description: 'Trimmed; unique within its site.' }),
  siteName: BoundedString(MEDIA_PLAN_SITE_NAME_MAX, {
    minLength: 1,
    description: "Trimmed. The plan's site of that name on the ad server; created when the plan has none.",
  }),
  dimension: BoundedString(DIMENSION_MAX_LENGTH, { pattern: DIMENSION_PATTERN, description: '<width>x<height>, each 1 to 99999 pixels' }),
  adServer: BoundedString(AD_SERVER_ID_MAX, { minLength: 1, description: 'An adServerId of GET /v2/ad-servers' }),
};

const CreateBody = Type.Object(
  { placementName: Writable.placementName, siteName: Writable.siteName, dimension: Writable.dimension, adServer: Writable.adServer },
  { additionalProperties: false },
);

const UpdateBody = Type.Object(
  {
    placementId: PlacementId,
    siteIdx: Int64({ minimum: 1, description: 'The site the placement is on now; with placementId it identifies the placement' }),
    placementName: Type.Optional(Writable.placementName),
    siteName: Type.Optional(Writable.siteName),
    adServer: Type.Optional(Writable.adServer),
    dimension: Type.Optional(Writable.dimension),
    ...fieldUpdateProperties(PLACEMENT_PARAM_FIELDS),
  },
  { additionalProperties: false },
);

// ---- Ad-unit details ----

const AdUnitTypes = Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() }));
const AdUnitDetails = Type.Object({
  placementId: Type.String(),
  inBannerAdUnit: Type.Optional(
    Type.Object({
      adUnitTypes: AdUnitTypes,
      hasMobileUnit: Type.Boolean(),
      mobileBannerType: Type.Array(Type.String()),
      mobileFlexCreativeUnitType: Type.Record(Type.String(), Type.Integer(), { description: 'Name to code' }),
      dimension: Type.String(),
    }),
  ),
  inStreamAdUnit: Type.Optional(
    Type.Object({
      adTagType: Type.Array(Type.String()),
      dynamicPriVideo: Type.Boolean(),
      playerType: Type.Array(Type.Object({ name: Type.String(), version: Type.String() })),
      videoTagType: Type.Array(Type.String()),
    }),
  ),
  mobileAdUnit: Type.Optional(Type.Object({ adUnitTypes: AdUnitTypes, dimension: Type.String() })),
  nativeAdUnit: Type.Optional(
    Type.Object({
      adUnitTypes: AdUnitTypes,
      dimension: Type.String(),
      responseFormat: Type.Record(Type.String(), Type.String(), { description: 'Numeric code to name' }),
    }),
  ),
});

const presentAdUnitDetails = (d: v1.GetAdUnitDetailsResponse) => ({
  placementId: String(d.placementId),
  ...(d.inBannerAdUnit && { inBannerAdUnit: d.inBannerAdUnit }),
  ...(d.inStreamAdUnit && { inStreamAdUnit: d.inStreamAdUnit }),
  ...(d.mobileAdUnit && { mobileAdUnit: d.mobileAdUnit }),
  ...(d.nativeAdUnit && { nativeAdUnit: d.nativeAdUnit }),
});

const placementOf = (answer: { placement?: v1.Placement }) => {
  if (!answer.placement) throw new Error('channels-plans returned no placement');
  return presentPlacement(answer.placement);
};

/** Placements of a media plan: the bulk-tag read, the ad-unit details of one placement, create and update. */
export const placementRoutes = [
  defineRoute({
    operationId: 'getBulkTagData',
    method: 'get',
    path: '/v2/accounts/:accountId/media-plans-bulkTag/:mediaPlanId/campaign/:campaignId',
    tag: TAG,
    summary: 'Read the placements of a media plan for bulk tagging',
    description:
      'Every placement of the plan (in id order) with its params and isTagPresent, grouped by the ad server of its site (ad servers in the order their first site was added, as in the media plan read). ' +
      "adServerParams names the ad server's id and kind. A campaign outside the account answers 404 RETAIL_CAMPAIGN_NOT_FOUND; a plan that is not one of the campaign's answers 404 MEDIA_PLAN_NOT_FOUND. " +
      `${PERMISSION_NOTE}MediaPlan_View.`,
    permission: CHANNELS_PLANS_ACCESS.getBulkTagData,
    scope: { account: 'accountId' },
    params: PlanOfCampaignPath,
    success: {
      status: 200,
      description: 'The plan and its placements by ad server',
      schema: Type.Object({
        adServers: Type.Array(
          Type.Object({ adServerName: Nullable(Type.String()), adServerParams: AdServerParamsSchema, placements: Type.Array(PlacementSchema) }),
        ),
        mediaPlanId: Type.Integer(),
        mediaPlanName: Type.String(),
      }),
    },
    problems: ['RETAIL_CAMPAIGN_NOT_FOUND', 'MEDIA_PLAN_NOT_FOUND'],
    example: {
      params: { accountId: 1001, mediaPlanId: 8801, campaignId: 310 },
      response: {
        adServers: [{ adServerName: 'Google Ad Manager', adServerParams: { adServerId: 'gam', kind: 'display' }, placements: [EXAMPLE_PLACEMENT] }],
        mediaPlanId: 8801,
        mediaPlanName: 'Spring sale - Acme GAM',
      },
    },
    async handle({ params, backends }) {
      const data = await backends.channelsPlans.getBulkTagData({
        accountId: params.accountId,
        mediaPlanId: params.mediaPlanId,
        retailCampaignId: params.campaignId,
      });
      return { body: { adServers: data.adServers.map(presentAdServer), mediaPlanId: data.mediaPlanId, mediaPlanName: data.mediaPlanName } };
    },
  }),

  defineRoute({
    operationId: 'getAdUnitDetails',
    method: 'get',
    path: '/v2/accounts/:accountId/media-plans/:mediaPlanId/campaign/:campaignId/adunitdetails',
    tag: TAG,
    summary: 'Read the ad units a placement offers',
    description:
      "From the ad-unit catalog, by the placement's dimension: inBannerAdUnit, inStreamAdUnit, mobileAdUnit and nativeAdUnit, each present only when the dimension offers units of that group " +
      '(a dimension the catalog does not know answers placementId alone). The ids are the adUnitId values tag requests take. ' +
      "A placement that is not in the plan answers 404 PLACEMENT_NOT_FOUND; a plan that is not one of the campaign's, 404 MEDIA_PLAN_NOT_FOUND. " +
      `${PERMISSION_NOTE}MediaPlan_View.`,
    permission: CHANNELS_PLANS_ACCESS.getAdUnitDetails,
    scope: { account: 'accountId' },
    params: PlanOfCampaignPath,
    query: Type.Object({ placementId: PlacementId }, { additionalProperties: false }),
    success: { status: 200, description: 'The ad-unit groups of the placement', schema: AdUnitDetails },
    problems: ['RETAIL_CAMPAIGN_NOT_FOUND', 'MEDIA_PLAN_NOT_FOUND', 'PLACEMENT_NOT_FOUND'],
    example: {
      params: { accountId: 1001, mediaPlanId: 8801, campaignId: 310 },
      query: { placementId: '44010' },
      response: {
        placementId: '44010',
        inBannerAdUnit: {
          adUnitTypes: [{ id: 101, name: 'Standard Banner' }],
          hasMobileUnit: true,
          mobileBannerType: ['Standard', 'Sticky'],
          mobileFlexCreativeUnitType: { 'Flex Banner': 1 },
          dimension: '300x250',
        },
        mobileAdUnit: { adUnitTypes: [{ id: 301, name: 'Mobile Banner' }], dimension: '300x250' },
        nativeAdUnit: { adUnitTypes: [{ id: 401, name: 'Native In-Feed' }], dimension: '300x250', responseFormat: { '1': 'JSON' } },
      },
    },
    async handle({ params, query, backends }) {
      const details = await backends.channelsPlans.getAdUnitDetails({
        accountId: params.accountId,
        mediaPlanId: params.mediaPlanId,
        retailCampaignId: params.campaignId,
        placementId: Number(query.placementId),
      });
      return { body: presentAdUnitDetails(details) };
    },
  }),

  defineRoute({
    operationId: 'createPlacement',
    method: 'post',
    path: '/v2/accounts/:accountId/media-plans/:mediaPlanId/placement',
    tag: TAG,
    summary: 'Create a placement in a media plan',
    description:
      "The placement goes on the plan's site named siteName on the ad server adServer (an adServerId of GET /v2/ad-servers; another value answers 400 at /adServer); " +
      "the site is created when the plan has none of that name there. Its ad-unit type follows the ad server's kind. " +
      'Names are trimmed; a placement name is unique within its site (409 PLACEMENT_NAME_TAKEN); sizes may repeat. ' +
      "The organization's dimension whitelist governs auto media plans only. " +
      `${PERMISSION_NOTE}MediaPlan_Edit.`,
    permission: CHANNELS_PLANS_ACCESS.createPlacement,
    scope: { account: 'accountId' },
    params: PlanPath,
    body: CreateBody,
    success: { status: 201, description: 'Created', schema: PlacementSchema },
    problems: ['MEDIA_PLAN_NOT_FOUND', 'PLACEMENT_NAME_TAKEN'],
    example: {
      params: { accountId: 1001, mediaPlanId: 8801 },
      request: { placementName: 'Homepage top', siteName: 'Acme GAM', dimension: '728x90', adServer: 'gam' },
      response: {
        ...EXAMPLE_PLACEMENT,
        placementName: 'Homepage top',
        dimension: '728x90',
        additionalInfo: { ...EXAMPLE_PLACEMENT.additionalInfo, params: {} },
      },
    },
    async handle({ params, body, backends }) {
      const answer = await backends.channelsPlans.createPlacement({
        accountId: params.accountId,
        mediaPlanId: params.mediaPlanId,
        placementName: body.placementName,
        siteName: body.siteName,
        dimension: body.dimension,
        adServerId: body.adServer,
      });
      return { status: 201, body: placementOf(answer) };
    },
  }),

  defineRoute({
    operationId: 'updatePlacement',
    method: 'patch',
    path: '/v2/accounts/:accountId/media-plans/:mediaPlanId/placement',
    tag: TAG,
    summary: 'Update a placement of a media plan',
    description:
      'placementId and siteIdx identify the placement; a pair that does not match a placement of the plan answers 404 PLACEMENT_NOT_FOUND. ' +
      "A new siteName or adServer moves the placement to the plan's site of that name on that ad server (created when missing; a site left without placements is removed), " +
      'and a new ad server brings its ad-unit type. ' +
      `The ad-server params given (${fieldNamesOfKind(PLACEMENT_PARAM_FIELDS, 'bool').join(', ')}; ${fieldNamesOfKind(PLACEMENT_PARAM_FIELDS, 'string').join(', ')}) ` +
      'replace the stored ones of the same name and the others stay. A name taken on the site answers 409 PLACEMENT_NAME_TAKEN and nothing changes. ' +
      `${PERMISSION_NOTE}MediaPlan_Edit.`,
    permission: CHANNELS_PLANS_ACCESS.updatePlacement,
    scope: { account: 'accountId' },
    params: PlanPath,
    body: UpdateBody,
    success: { status: 200, description: 'The placement as it is now', schema: PlacementSchema },
    problems: ['MEDIA_PLAN_NOT_FOUND', 'PLACEMENT_NOT_FOUND', 'PLACEMENT_NAME_TAKEN'],
    example: {
      params: { accountId: 1001, mediaPlanId: 8801 },
      request: { placementId: '44010', siteIdx: 9120, adChoices: true, gdprConsentMacro: '${GDPR_CONSENT_755}' },
      response: EXAMPLE_PLACEMENT,
    },
    async handle({ params, body, backends }) {
      const answer = await backends.channelsPlans.updatePlacement({
        accountId: params.accountId,
        mediaPlanId: params.mediaPlanId,
        placementId: Number(body.placementId),
        siteIdx: body.siteIdx,
        placementName: body.placementName,
        siteName: body.siteName,
        adServerId: body.adServer,
        dimension: body.dimension,
        params: pickFieldInput(PLACEMENT_PARAM_FIELDS, 'update', body),
      });
      return { body: placementOf(answer) };
    },
  }),
];
