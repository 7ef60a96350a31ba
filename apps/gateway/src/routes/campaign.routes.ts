import { Type } from '@sinclair/typebox';
import {
  CAMPAIGN_ASSET_MAP_MAX,
  CAMPAIGN_CREATIVE_MASTERS_MAX,
  CAMPAIGN_DECISION_MAP_MAX,
  CAMPAIGN_EXPRESSIONS_MAX,
  CAMPAIGN_NAME_MAX,
  CAMPAIGN_SEGMENTS_MAX,
  CAMPAIGN_TEXT_MAX,
  CAMPAIGN_URL_MAX,
  CONDITION_OPERATORS,
  DATA_SIGNAL_PROPERTY_ID_MAX,
  EXPLAIN_REQUEST_ID_MAX,
  EXPLAIN_SIGNALS_MAX,
  EXPRESSION_VALUE_MAX,
  EXPRESSION_VALUES_MAX,
  CONTENT_CREATIVE_ACCESS,
  RULE_PRIORITIES,
} from '@contracts/domain';
import { contentCreativeV1 as v1 } from '@contracts/proto';
import type { PageLinks } from '../http/pagination';
import { PageQuery } from '../http/pagination';
import { AccountId, BoundedString, IdInt64, Idx, Int32, Nullable, PathParams, StringEnum } from './common.schemas';
import { defineRoute } from './route.types';

const TAG = 'dynamic campaigns';

/** The campaign and data-signal lists answer "" rather than null where there is no adjacent page. */
const EmptyOrUrl = Type.Union([Type.String({ format: 'uri' }), Type.Literal('')]);
const EmptyAtEndsLinks = { next: EmptyOrUrl, previous: EmptyOrUrl };
const emptyAtEnds = (links: PageLinks) => ({ next: links.next ?? '', previous: links.previous ?? '' });

const AccountPath = PathParams({ accountId: AccountId });
const CampaignPath = PathParams({ accountId: AccountId, campaignId: Idx });

const Text = (description?: string) => BoundedString(CAMPAIGN_TEXT_MAX, { minLength: 1, description });
const SignalId = IdInt64({ minimum: 1, description: 'A dataSignalId of the data-signal catalog.' });
const AssetSourceId = IdInt64({ minimum: 1, description: 'An asset source of the account.' });
const PropertyId = BoundedString(DATA_SIGNAL_PROPERTY_ID_MAX, { minLength: 1, description: 'A propertyId of that data signal.' });
const Scalar = Type.Union([BoundedString(EXPRESSION_VALUE_MAX), Int32()]);
const Operand = Type.Union([Scalar, Type.Array(Scalar, { maxItems: EXPRESSION_VALUES_MAX })], {
  description:
    'A string or integer of the property valueType; a non-empty list for IN and NOT_IN; [low, high] for BETWEEN. GREATER_THAN, LESS_THAN and BETWEEN take numbers.',
});

const AssetMapEntry = Type.Object(
  { assetId: Text('The asset slot of the creative'), assetSourceId: AssetSourceId, assetSourceColumn: Text('A column of that asset source') },
  { additionalProperties: false },
);
const DecisionMapEntry = Type.Object(
  { assetSourceId: AssetSourceId, dataSignalService: SignalId, dataSignalProperty: PropertyId },
  { additionalProperties: false, description: 'Which data-signal property selects rows of an asset source.' },
);
const ExpressionSchema = Type.Object(
  {
    dataSignalServiceId: SignalId,
    dataSignalPropertyId: PropertyId,
    operator: BoundedString(32, {
      minLength: 1,
      description: 'One of the operators the property allows, as the catalog names it (GREATER_THAN) or hyphenated in lower case (greater-than).',
    }),
    value: Operand,
  },
  { additionalProperties: false },
);
const SegmentSchema = Type.Object(
  {
    name: Text('Unique within the campaign'),
    creativeMasters: Type.Array(Text(), {
      minItems: 1,
      maxItems: CAMPAIGN_CREATIVE_MASTERS_MAX,
      description: 'Served when the segment matches; at least one.',
    }),
    condition: Type.Object(
      {
        operator: StringEnum(CONDITION_OPERATORS, { description: 'How the expressions combine.' }),
        expressions: Type.Array(ExpressionSchema, { minItems: 1, maxItems: CAMPAIGN_EXPRESSIONS_MAX }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
const DecisionGraphSchema = Type.Object(
  {
    defaultCreativeMaster: Type.Optional(Nullable(Text('Served when no segment matches; required when there are segments.'))),
    // One enum that admits null, so a wrong value gets one "must be one of" error rather than anyOf noise.
    rulePriority: Type.Optional(
      Type.Unsafe<(typeof RULE_PRIORITIES)[number] | null>({
        type: ['string', 'null'],
        enum: [...RULE_PRIORITIES, null],
        description: 'EQUAL_ROTATION rotates evenly over the matching segments; PRIORITY serves the first that matches.',
      }),
    ),
    segments: Type.Array(SegmentSchema, { maxItems: CAMPAIGN_SEGMENTS_MAX }),
  },
  { additionalProperties: false },
);

const CreateBody = Type.Object(
  {
    campaignName: BoundedString(CAMPAIGN_NAME_MAX, { minLength: 1 }),
    defaultURL: BoundedString(CAMPAIGN_URL_MAX, { minLength: 1, format: 'uri', description: 'An absolute http or https URL.' }),
    assetMap: Type.Array(AssetMapEntry, { maxItems: CAMPAIGN_ASSET_MAP_MAX, description: 'Every asset source and column must exist in the account.' }),
    decisionMap: Type.Array(DecisionMapEntry, { maxItems: CAMPAIGN_DECISION_MAP_MAX }),
    decisionGraph: DecisionGraphSchema,
    ad: Type.Object({ adId: Text(), title: Type.Optional(Text('Defaults to the campaign name.')) }, { additionalProperties: false }),
  },
  { additionalProperties: false },
);

const Summary = {
  campaignId: Type.Integer(),
  campaignName: Type.String(),
  defaultURL: Type.String(),
  creationDate: Type.String({ description: 'yyyy-mm-dd hh:mm:ss.s, UTC' }),
  lastUpdate: Type.String({ description: 'yyyy-mm-dd hh:mm:ss.s, UTC' }),
};
const ExpressionOut = Type.Object({
  dataSignalServiceId: Type.Integer(),
  dataSignalPropertyId: Type.String(),
  operator: Type.String(),
  value: Type.Union([Type.String(), Type.Number(), Type.Array(Type.Union([Type.String(), Type.Number()]))]),
});
const CampaignOut = Type.Object({
  ...Summary,
  assetMap: Type.Array(Type.Object({ assetId: Type.String(), assetSourceId: Type.Integer(), assetSourceColumn: Type.String() })),
  decisionMap: Type.Array(Type.Object({ assetSourceId: Type.Integer(), dataSignalService: Type.Integer(), dataSignalProperty: Type.String() })),
  decisionGraph: Type.Object({
    defaultCreativeMaster: Nullable(Type.String()),
    rulePriority: Nullable(Type.String()),
    segments: Type.Array(
      Type.Object({
        name: Type.String(),
        creativeMasters: Type.Array(Type.String()),
        condition: Type.Object({ operator: Type.String(), expressions: Type.Array(ExpressionOut) }),
      }),
    ),
  }),
  ad: Type.Object({ adId: Type.String(), title: Type.String(), dynamic: Type.Boolean({ description: 'True when segments choose the creative by signal.' }) }),
});

const presentSummary = (s: v1.DynamicCampaignSummary | undefined) => ({
  campaignId: s?.campaignId ?? 0,
  campaignName: s?.campaignName ?? '',
  defaultURL: s?.defaultUrl ?? '',
  creationDate: s?.creationDate ?? '',
  lastUpdate: s?.lastUpdate ?? '',
});

const presentCampaign = (c: v1.GetDynamicCampaignResponse) => ({
  ...presentSummary(c.summary),
  assetMap: c.assetMap,
  decisionMap: c.decisionMap,
  decisionGraph: {
    defaultCreativeMaster: c.decisionGraph?.defaultCreativeMaster ?? null,
    rulePriority: c.decisionGraph?.rulePriority ?? null,
    segments: (c.decisionGraph?.segments ?? []).map((s) => ({
      name: s.name,
      creativeMasters: s.creativeMasters,
      condition: {
        operator: s.condition?.operator ?? 'and',
        expressions: (s.condition?.expressions ?? []).map((e) => ({
          dataSignalServiceId: e.dataSignalServiceId,
          dataSignalPropertyId: e.dataSignalPropertyId,
          operator: e.operator,
          value: JSON.parse(e.valueJson) as unknown,
        })),
      },
    })),
  },
  ad: { adId: c.ad?.adId ?? '', title: c.ad?.title ?? '', dynamic: c.ad?.dynamic ?? false },
});

const EXAMPLE_CREATE = {
  campaignName: 'Weather-led spring',
  defaultURL: 'https://shop.example.com/spring',
  assetMap: [{ assetId: 'heroImage', assetSourceId: 42, assetSourceColumn: 'imageUrl' }],
  decisionMap: [{ assetSourceId: 42, dataSignalService: 3, dataSignalProperty: 'condition' }],
  decisionGraph: {
    defaultCreativeMaster: 'cm-default',
    rulePriority: 'EQUAL_ROTATION' as const,
    segments: [
      {
        name: 'Warm weekend',
        creativeMasters: ['cm-sun', 'cm-beach'],
        condition: {
          operator: 'and' as const,
          expressions: [
            { dataSignalServiceId: 3, dataSignalPropertyId: 'temperature', operator: 'greater-than', value: 20 },
            { dataSignalServiceId: 2, dataSignalPropertyId: 'dayOfWeek', operator: 'IN', value: ['SATURDAY', 'SUNDAY'] },
          ],
        },
      },
    ],
  },
  ad: { adId: 'ad-7' },
};
const EXAMPLE_SUMMARY = {
  campaignId: 17,
  campaignName: 'Weather-led spring',
  defaultURL: 'https://shop.example.com/spring',
  creationDate: '2026-11-23 16:01:02.3',
  lastUpdate: '2026-11-23 16:01:02.3',
};

const DataSignalOut = Type.Object({
  dataSignalId: Type.Integer(),
  dataSignalName: Type.String(),
  dataSignalProperties: Type.Array(
    Type.Object({
      propertyId: Type.String(),
      propertyName: Type.String(),
      operators: Type.Array(Type.String()),
      valueType: Type.String({ description: 'string or number: the type an expression operand on this property must have.' }),
    }),
  ),
});

const ExplainBody = Type.Object(
  {
    signals: Type.Array(
      Type.Object(
        { dataSignalServiceId: SignalId, dataSignalPropertyId: PropertyId, value: Scalar },
        { additionalProperties: false, description: 'One signal value of the request being explained.' },
      ),
      { maxItems: EXPLAIN_SIGNALS_MAX, description: 'Signals not listed are missing, as they would be on a request without them.' },
    ),
    requestId: Type.Optional(
      BoundedString(EXPLAIN_REQUEST_ID_MAX, { description: 'EQUAL_ROTATION picks deterministically per request id; the same id gets the same answer.' }),
    ),
  },
  { additionalProperties: false },
);

const ExplanationOut = Type.Object({
  creativeMaster: Nullable(Type.String({ description: 'null: nothing is served (no segment matched and there is no default).' })),
  matchedSegment: Nullable(Type.String()),
  usedDefault: Type.Boolean({ description: 'True when no segment matched and defaultCreativeMaster served.' }),
  rulePriority: Nullable(Type.String()),
  segments: Type.Array(
    Type.Object({
      name: Type.String(),
      matched: Type.Boolean(),
      expressions: Type.Array(
        Type.Object({
          ...ExpressionOut.properties,
          signalValue: Nullable(Type.Union([Type.String(), Type.Number()])),
          outcome: Type.Boolean(),
          reason: Nullable(
            Type.String({ description: 'MISSING_SIGNAL, WRONG_TYPE (the signal value is not of the operand type) or OPERATOR_FALSE; null when it held.' }),
          ),
        }),
      ),
    }),
  ),
});

/** Dynamic campaigns (create, list, read, delete) and the data-signal catalog they decide by. */
export const campaignRoutes = [
  defineRoute({
    operationId: 'createDynamicCampaign',
    method: 'post',
    path: '/v2/accounts/:accountId/campaigns',
    tag: TAG,
    summary: 'Create a dynamic campaign',
    description:
      'Every reference is checked before anything is stored: asset sources and their columns must exist in the account; data signals and properties must be in the catalog ' +
      '(GET .../data-signals); each expression operator must be one its property allows, with an operand of the property type; each segment needs creative masters, ' +
      'and a graph with segments needs defaultCreativeMaster. campaignId is a string here and an integer in lists and reads.',
    permission: CONTENT_CREATIVE_ACCESS.createDynamicCampaign,
    scope: { account: 'accountId' },
    params: AccountPath,
    body: CreateBody,
    success: { status: 201, description: 'Created', schema: Type.Object({ campaignId: Type.String(), msg: Type.String() }) },
    example: { params: { accountId: 1001 }, request: EXAMPLE_CREATE, response: { campaignId: '17', msg: 'Campaign created.' } },
    async handle({ params, body, backends }) {
      const graph = body.decisionGraph;
      const result = await backends.contentCreative.createDynamicCampaign({
        accountId: params.accountId,
        campaignName: body.campaignName,
        defaultUrl: body.defaultURL,
        assetMap: body.assetMap,
        decisionMap: body.decisionMap,
        decisionGraph: {
          defaultCreativeMaster: graph.defaultCreativeMaster ?? undefined,
          rulePriority: graph.rulePriority ?? undefined,
          segments: graph.segments.map((s) => ({
            name: s.name,
            creativeMasters: s.creativeMasters,
            condition: {
              operator: s.condition.operator,
              expressions: s.condition.expressions.map(({ value, ...e }) => ({ ...e, valueJson: JSON.stringify(value) })),
            },
          })),
        },
        adId: body.ad.adId,
        adTitle: body.ad.title,
      });
      return { status: 201, body: { campaignId: String(result.campaignId), msg: 'Campaign created.' } };
    },
  }),

  defineRoute({
    operationId: 'listDynamicCampaigns',
    method: 'get',
    path: '/v2/accounts/:accountId/campaigns',
    tag: TAG,
    summary: 'List the dynamic campaigns of an account',
    description: 'In campaignId order. next and previous are "" where there is no adjacent page.',
    permission: CONTENT_CREATIVE_ACCESS.listDynamicCampaigns,
    scope: { account: 'accountId' },
    params: AccountPath,
    query: PageQuery,
    success: {
      status: 200,
      description: 'A page of campaigns',
      schema: Type.Object({ campaigns: Type.Array(Type.Object(Summary)), ...EmptyAtEndsLinks }),
    },
    example: { params: { accountId: 1001 }, query: { offset: 0, limit: 25 }, response: { campaigns: [EXAMPLE_SUMMARY], next: '', previous: '' } },
    async handle({ params, query, backends, links }) {
      const result = await backends.contentCreative.listDynamicCampaigns({ accountId: params.accountId, page: query });
      return { body: { campaigns: result.campaigns.map(presentSummary), ...emptyAtEnds(links({ ...query, total: result.total })) } };
    },
  }),

  defineRoute({
    operationId: 'getDynamicCampaign',
    method: 'get',
    path: '/v2/accounts/:accountId/campaigns/:campaignId',
    tag: TAG,
    summary: 'Read a dynamic campaign',
    description: 'With its asset map, decision map, decision graph and ad (title, and dynamic: whether segments choose the creative).',
    permission: CONTENT_CREATIVE_ACCESS.getDynamicCampaign,
    scope: { account: 'accountId' },
    params: CampaignPath,
    success: { status: 200, description: 'The campaign', schema: CampaignOut },
    problems: ['DYNAMIC_CAMPAIGN_NOT_FOUND'],
    example: {
      params: { accountId: 1001, campaignId: 17 },
      response: { ...EXAMPLE_SUMMARY, ...EXAMPLE_CREATE, ad: { adId: 'ad-7', title: 'Weather-led spring', dynamic: true } },
    },
    async handle({ params, backends }) {
      return { body: presentCampaign(await backends.contentCreative.getDynamicCampaign({ accountId: params.accountId, campaignId: params.campaignId })) };
    },
  }),

  defineRoute({
    operationId: 'deleteDynamicCampaign',
    method: 'delete',
    path: '/v2/accounts/:accountId/campaigns/:campaignId',
    tag: TAG,
    summary: 'Delete a dynamic campaign',
    description: 'Answers 200 with no body; the campaign is gone (a read or a second delete answers 404).',
    permission: CONTENT_CREATIVE_ACCESS.deleteDynamicCampaign,
    scope: { account: 'accountId' },
    params: CampaignPath,
    success: { status: 200, description: 'Deleted; no body' },
    problems: ['DYNAMIC_CAMPAIGN_NOT_FOUND'],
    example: { params: { accountId: 1001, campaignId: 17 } },
    async handle({ params, backends }) {
      await backends.contentCreative.deleteDynamicCampaign({ accountId: params.accountId, campaignId: params.campaignId });
      return {};
    },
  }),

  defineRoute({
    operationId: 'listDataSignals',
    method: 'get',
    path: '/v2/accounts/:accountId/data-signals',
    tag: TAG,
    summary: 'List the data signals campaigns can decide by',
    description:
      'The catalog: geography (country, region, city, postal code), time (day of week, hour of day), weather (condition, temperature), device (type, OS) and audience segment, ' +
      'each property with the operators it allows. In dataSignalId order; next and previous are "" where there is no adjacent page.',
    permission: CONTENT_CREATIVE_ACCESS.listDataSignals,
    scope: { account: 'accountId' },
    params: AccountPath,
    query: PageQuery,
    success: { status: 200, description: 'A page of data signals', schema: Type.Object({ dataSignals: Type.Array(DataSignalOut), ...EmptyAtEndsLinks }) },
    example: {
      params: { accountId: 1001 },
      query: { offset: 0, limit: 1 },
      response: {
        dataSignals: [
          {
            dataSignalId: 3,
            dataSignalName: 'Weather',
            dataSignalProperties: [
              {
                propertyId: 'temperature',
                propertyName: 'Temperature, degrees Celsius',
                operators: ['EQUALS', 'GREATER_THAN', 'LESS_THAN', 'BETWEEN'],
                valueType: 'number',
              },
            ],
          },
        ],
        next: 'https://api.example.com/v2/accounts/1001/data-signals?offset=3&limit=1',
        previous: 'https://api.example.com/v2/accounts/1001/data-signals?offset=1&limit=1',
      },
    },
    async handle({ params, query, backends, links }) {
      const result = await backends.contentCreative.listDataSignals({ accountId: params.accountId, page: query });
      return { body: { dataSignals: result.dataSignals, ...emptyAtEnds(links({ ...query, total: result.total })) } };
    },
  }),
  defineRoute({
    operationId: 'explainDecision',
    method: 'post',
    path: '/v2/accounts/:accountId/campaigns/:campaignId/decisions/explain',
    tag: TAG,
    summary: 'Explain which creative master a campaign serves for given signal values',
    description:
      'Why this variant, or why no ad: the chosen creative master and segment, every segment with each expression outcome and the reason it failed, and whether the default served. ' +
      'Evaluated exactly as serving does; stores nothing.',
    permission: CONTENT_CREATIVE_ACCESS.explainDecision,
    scope: { account: 'accountId' },
    extension: true,
    params: CampaignPath,
    body: ExplainBody,
    success: { status: 200, description: 'The decision and its reasons', schema: ExplanationOut },
    problems: ['DYNAMIC_CAMPAIGN_NOT_FOUND'],
    example: {
      params: { accountId: 1001, campaignId: 17 },
      request: { signals: [{ dataSignalServiceId: 3, dataSignalPropertyId: 'temperature', value: 25 }], requestId: 'req-1' },
      response: {
        creativeMaster: 'cm-default',
        matchedSegment: null,
        usedDefault: true,
        rulePriority: 'EQUAL_ROTATION',
        segments: [
          {
            name: 'Warm weekend',
            matched: false,
            expressions: [
              {
                dataSignalServiceId: 3,
                dataSignalPropertyId: 'temperature',
                operator: 'greater-than',
                value: 20,
                signalValue: 25,
                outcome: true,
                reason: null,
              },
              {
                dataSignalServiceId: 2,
                dataSignalPropertyId: 'dayOfWeek',
                operator: 'IN',
                value: ['SATURDAY', 'SUNDAY'],
                signalValue: null,
                outcome: false,
                reason: 'MISSING_SIGNAL',
              },
            ],
          },
        ],
      },
    },
    async handle({ params, body, backends }) {
      const result = await backends.contentCreative.explainDecision({
        accountId: params.accountId,
        campaignId: params.campaignId,
        signals: body.signals.map(({ value, ...s }) => ({ ...s, valueJson: JSON.stringify(value) })),
        requestId: body.requestId ?? '',
      });
      return {
        body: {
          creativeMaster: result.creativeMaster ?? null,
          matchedSegment: result.matchedSegment ?? null,
          usedDefault: result.usedDefault,
          rulePriority: result.rulePriority ?? null,
          segments: result.segments.map((segment) => ({
            name: segment.name,
            matched: segment.matched,
            expressions: segment.expressions.map((t) => ({
              dataSignalServiceId: t.expression?.dataSignalServiceId ?? 0,
              dataSignalPropertyId: t.expression?.dataSignalPropertyId ?? '',
              operator: t.expression?.operator ?? '',
              value: JSON.parse(t.expression?.valueJson ?? 'null') as unknown,
              signalValue: t.signalValueJson === undefined ? null : (JSON.parse(t.signalValueJson) as unknown),
              outcome: t.outcome,
              reason: t.reason ?? null,
            })),
          })),
        },
      };
    },
  }),
];
