import { Type, type Static } from '@sinclair/typebox';
import {
  ASSET_SOURCE_COLUMN_NAME_MAX,
  ASSET_SOURCE_COLUMNS_MAX,
  ASSET_SOURCE_CONTENT_TYPES,
  ASSET_SOURCE_LABEL_MAX,
  ASSET_SOURCE_NAME_MAX,
  ASSET_SOURCE_PARAMS_MAX,
  ASSET_SOURCE_ROW_MAX_BYTES,
  ASSET_SOURCE_ROWS_MAX,
  ASSET_SOURCE_SPECIAL_COLUMNS,
  ASSET_SOURCE_TYPES,
  ASSET_SOURCE_URL_MAX,
  MOTION_DESIGN_CAMPAIGN_ID_MAX,
  MOTION_DESIGN_MAP_MAX,
  ASSET_SOURCES_ACCESS,
  RECOMMENDATION_ACCEPTED_RANGE_MAX,
  RECOMMENDATION_COOKIE_GROUP_MAX,
  RECOMMENDATION_COOKIE_ID_MAX,
  RECOMMENDATION_DATA_TYPES,
  RECOMMENDATION_EVENT_TYPE_MAX,
  RECOMMENDATION_ITEM_KEY_MAX,
  RECOMMENDATION_MAP_MAX,
  RECOMMENDATION_PRIORITY_MAX,
  RECOMMENDATION_PRIORITY_MIN,
  RECOMMENDATION_TYPES,
  RECOMMENDATION_UPDATE_FREQUENCY_MAX,
  RECOMMENDATIONS_MAX,
  REMOTE_CACHE_TIME_MAX,
  REMOTE_HTTP_METHODS,
} from '@contracts/domain';
import { assetSourcesV1 as v1 } from '@contracts/proto';
import { PageQuery, type PageLinks } from '../http/pagination';
import { AccountId, BoundedString, FreeFormObject, Int32, Int64, Nullable, PathParams, StringEnum } from './common.schemas';
import { FeedSettingsSchema, presentFeedSettings } from './feed-source.schemas';
import { presentSourceColumns, SourceColumnsMembers } from './source-columns.schemas';
import { defineRoute } from './route.types';

const TAG = 'asset sources';

/** Asset-source and label lists answer "" rather than null where there is no adjacent page. */
const EmptyOrUrl = Type.Union([Type.String({ format: 'uri' }), Type.Literal('')]);
const emptyAtEnds = (links: PageLinks) => ({ next: links.next ?? '', previous: links.previous ?? '' });

const SourceId = Int64({ minimum: 1, description: 'Asset source id' });
const AccountPath = PathParams({ accountId: AccountId });
const SourcePath = PathParams({ accountId: AccountId, assetSourceId: SourceId });
const LabelPath = PathParams({ accountId: AccountId, objId: Int64({ minimum: 1, description: 'The asset source id' }) });
const RecommendationCreatePath = PathParams({
  accountId: AccountId,
  sourceAssetSourceId: Int64({ minimum: 1, description: 'The source whose items are ranked' }),
});
const RecommendationPath = PathParams({
  accountId: AccountId,
  sourceAssetSourceId: Int64({ minimum: 1, description: 'The source whose items are ranked' }),
  assetSourceId: Int64({ minimum: 1, description: 'The recommendation source' }),
});

// --- request members -------------------------------------------------------------------------------

const ColumnName = (description?: string) => BoundedString(ASSET_SOURCE_COLUMN_NAME_MAX, { minLength: 1, description });
const SpecialColumn = (description: string) => Type.Optional(Nullable(ColumnName(`${description} One of columnNames; null or absent for none.`)));
const specialColumnMembers = {
  assetKeyColumn: SpecialColumn('The column that identifies an item.'),
  assetVariantColumn: SpecialColumn('The column that tells variants of an item apart.'),
  assetGroupColumn: SpecialColumn('The column that groups items.'),
  reportingColumn: SpecialColumn('The column reported on.'),
  rotationWeightColumn: SpecialColumn('The column holding each row rotation weight; its values must be numbers of at least 0.'),
};
/** The members every kind's create and update shares: name, columns and the special columns. */
export const sourceDefinitionMembers = {
  assetSourceName: BoundedString(ASSET_SOURCE_NAME_MAX, { minLength: 1 }),
  columnNames: Type.Array(ColumnName(), { minItems: 1, maxItems: ASSET_SOURCE_COLUMNS_MAX, description: 'The columns, in order; names are unique.' }),
  ...specialColumnMembers,
};
const Row = FreeFormObject(ASSET_SOURCE_ROW_MAX_BYTES, 'A row keyed by column name; every key must be one of columnNames.');
const Rows = Type.Array(Row, { maxItems: ASSET_SOURCE_ROWS_MAX, description: 'The rows, in order.' });
const ContentType = StringEnum(ASSET_SOURCE_CONTENT_TYPES);

const InlineBody = Type.Object({ ...sourceDefinitionMembers, contentType: Type.Optional(Nullable(ContentType)), data: Rows }, { additionalProperties: false });
const InlinePatchBody = Type.Partial(InlineBody, { additionalProperties: false });
const RemoteBody = Type.Object(
  {
    ...sourceDefinitionMembers,
    url: BoundedString(ASSET_SOURCE_URL_MAX, {
      minLength: 1,
      format: 'uri',
      description: 'http or https URL fetched on data read, through the outbound guard.',
    }),
    httpMethod: Type.Optional(StringEnum(REMOTE_HTTP_METHODS, { description: 'GET (default) or POST.' })),
    additionalParams: Type.Optional(
      BoundedString(ASSET_SOURCE_PARAMS_MAX, { description: 'Appended as the query string (GET) or sent as a form body (POST), e.g. `region=eu&lang=en`.' }),
    ),
    cacheTime: Type.Optional(
      Int32({
        minimum: 0,
        maximum: REMOTE_CACHE_TIME_MAX,
        description: 'Seconds a fetched copy is served before the URL is fetched again; 0 (default) fetches on every read.',
      }),
    ),
    contentType: StringEnum(ASSET_SOURCE_CONTENT_TYPES, {
      description: 'How the fetched body is parsed: CSV with a header row, a JSON array of objects, or repeated XML elements.',
    }),
  },
  { additionalProperties: false },
);
const RecommendationBody = Type.Object(
  {
    updateFrequency: Int32({ minimum: 1, maximum: RECOMMENDATION_UPDATE_FREQUENCY_MAX, description: 'Hours between scheduled recomputations.' }),
    recommendationConfig: Type.Object(
      {
        type: StringEnum(RECOMMENDATION_TYPES),
        maxRecommendations: Int32({ minimum: 1, maximum: RECOMMENDATIONS_MAX, description: 'Recommendations kept per item.' }),
        cookieGroup: Type.Optional(
          BoundedString(RECOMMENDATION_COOKIE_GROUP_MAX, {
            minLength: 1,
            description: 'Required for collaborative and hybrid, refused for content: the group interaction events are recorded in.',
          }),
        ),
        recommendationMap: Type.Optional(
          Type.Array(
            Type.Object(
              {
                assetSourceColumn: ColumnName('A column of the source.'),
                dataType: StringEnum(RECOMMENDATION_DATA_TYPES),
                priority: Type.Optional(
                  Int32({
                    minimum: RECOMMENDATION_PRIORITY_MIN,
                    maximum: RECOMMENDATION_PRIORITY_MAX,
                    description: 'Only for dataType string: what an equal value adds to the score (default 1).',
                  }),
                ),
                acceptedRange: Type.Optional(
                  Int32({
                    minimum: 0,
                    maximum: RECOMMENDATION_ACCEPTED_RANGE_MAX,
                    description: 'Only for dataType numeric: values at most this far apart match, adding 1 (default 0).',
                  }),
                ),
              },
              { additionalProperties: false },
            ),
            { maxItems: RECOMMENDATION_MAP_MAX, description: 'Required for content and hybrid, refused for collaborative.' },
          ),
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
const LabelBody = Type.Object(
  { label: BoundedString(ASSET_SOURCE_LABEL_MAX, { minLength: 1, description: 'Compared exactly, after trimming.' }) },
  { additionalProperties: false },
);
const MotionDesignPath = PathParams({
  accountId: AccountId,
  destAssetSourceId: Int64({ minimum: 0, description: 'The motion-design source to fill; 0 creates one.' }),
});
const MotionDesignBody = Type.Object(
  {
    campaignId: BoundedString(MOTION_DESIGN_CAMPAIGN_ID_MAX, { minLength: 1, description: 'A dynamic campaign of the account (its decimal id).' }),
    destinationAssetSourceName: BoundedString(ASSET_SOURCE_NAME_MAX, { minLength: 1 }),
    assetSourceMap: Type.Array(
      Type.Object(
        {
          assetId: BoundedString(512, { minLength: 1, description: 'The asset, as its asset-library path (the library path rules apply).' }),
          assetSourceColumn: ColumnName('The destination column holding that asset path.'),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: MOTION_DESIGN_MAP_MAX },
    ),
  },
  { additionalProperties: false },
);
const EventBody = Type.Object(
  {
    cookieId: BoundedString(RECOMMENDATION_COOKIE_ID_MAX, { minLength: 1, description: 'The visitor cookie.' }),
    itemKey: BoundedString(RECOMMENDATION_ITEM_KEY_MAX, { minLength: 1, description: 'The asset key of the item interacted with.' }),
    eventType: BoundedString(RECOMMENDATION_EVENT_TYPE_MAX, {
      minLength: 1,
      description: 'view, click, purchase, ...: every type counts once per cookie and item.',
    }),
  },
  { additionalProperties: false },
);

// --- responses --------------------------------------------------------------------------------------

const NullableString = Nullable(Type.String());
const DetailMembers = {
  assetSourceId: Type.String({ description: 'The source id as a string, as the detail shows it.' }),
  assetSourceName: Type.String(),
  assetSourceType: StringEnum(ASSET_SOURCE_TYPES),
  ...SourceColumnsMembers,
  contentType: NullableString,
  rowCount: Type.Integer({ description: 'Rows the source holds (a remote source: of its last fetched copy).' }),
  remote: Type.Optional(
    Type.Object(
      { url: Type.String(), httpMethod: Type.String(), additionalParams: Type.String(), cacheTime: Type.Integer() },
      { description: 'Remote sources only.' },
    ),
  ),
  recommendation: Type.Optional(
    Type.Object(
      {
        sourceAssetSourceId: Type.Integer(),
        updateFrequency: Type.Integer(),
        recommendationConfig: Type.Object({}, { additionalProperties: true }),
        computedTime: NullableString,
        status: Type.String({
          description: 'computed, not-computed, or awaiting-events: collaborative and hybrid recommendations are empty until interaction events exist.',
        }),
        statusDetail: Type.String(),
      },
      { description: 'Recommendation sources only. Their rows are {itemKey, recommendedItemKey, rank, score}.' },
    ),
  ),
  feed: Type.Optional(FeedSettingsSchema),
  createdTime: Type.String({ format: 'date-time' }),
  updatedTime: Type.String({ format: 'date-time' }),
};
const Detail = Type.Object(DetailMembers, { description: 'An asset source.' });
const Saved = Type.Object({ id: Type.Integer({ description: 'The asset source id.' }), msg: Type.String() });

const nullable = (value: string | undefined) => value ?? null;
const configOf = (c: v1.RecommendationConfig | undefined) => ({
  type: c?.type,
  maxRecommendations: c?.maxRecommendations,
  ...(c?.cookieGroup !== undefined ? { cookieGroup: c.cookieGroup } : {}),
  ...(c?.recommendationMap ? { recommendationMap: c.recommendationMap.entries } : {}),
});

const present = (s: v1.AssetSourceDetail | undefined) => {
  const d = s as v1.AssetSourceDetail;
  const r = d.recommendation;
  return {
    assetSourceId: String(d.assetSourceId),
    assetSourceName: d.assetSourceName,
    assetSourceType: d.assetSourceType,
    ...presentSourceColumns(d.columnNames, d.columns),
    contentType: nullable(d.contentType),
    rowCount: d.rowCount,
    ...(d.remote ? { remote: d.remote } : {}),
    ...(r
      ? {
          recommendation: {
            sourceAssetSourceId: r.sourceAssetSourceId,
            updateFrequency: r.updateFrequency,
            recommendationConfig: configOf(r.config),
            computedTime: nullable(r.computedTime),
            status: r.status,
            statusDetail: r.statusDetail,
          },
        }
      : {}),
    ...(d.feed ? { feed: presentFeedSettings(d.feed) } : {}),
    createdTime: d.createdTime,
    updatedTime: d.updatedTime,
  };
};

type SpecialColumnBody = Partial<Record<(typeof ASSET_SOURCE_SPECIAL_COLUMNS)[number], string | null>>;
const columnsOf = (body: SpecialColumnBody): v1.SourceColumns => ({
  assetKeyColumn: body.assetKeyColumn ?? undefined,
  assetVariantColumn: body.assetVariantColumn ?? undefined,
  assetGroupColumn: body.assetGroupColumn ?? undefined,
  reportingColumn: body.reportingColumn ?? undefined,
  rotationWeightColumn: body.rotationWeightColumn ?? undefined,
});

const recommendationConfigOf = (body: {
  recommendationConfig: { type: string; maxRecommendations: number; cookieGroup?: string; recommendationMap?: v1.RecommendationMapEntry[] };
}) => ({
  type: body.recommendationConfig.type,
  maxRecommendations: body.recommendationConfig.maxRecommendations,
  cookieGroup: body.recommendationConfig.cookieGroup,
  recommendationMap: body.recommendationConfig.recommendationMap && { entries: body.recommendationConfig.recommendationMap },
});

// --- examples (openapi-coverage.spec.ts checks each against its schema) ----------------------------

const EXAMPLE_INLINE = {
  assetSourceName: 'Spring products',
  columnNames: ['sku', 'name', 'image', 'weight'],
  assetKeyColumn: 'sku',
  assetVariantColumn: null,
  assetGroupColumn: null,
  reportingColumn: 'name',
  rotationWeightColumn: 'weight',
  contentType: 'json' as const,
  data: [
    { sku: 'A1', name: 'Apple', image: 'products/apple.png', weight: 2 },
    { sku: 'B2', name: 'Banana', image: 'products/banana.png', weight: 1 },
  ],
};
const EXAMPLE_DETAIL = {
  assetSourceId: '42',
  assetSourceName: 'Spring products',
  assetSourceType: 'inline' as const,
  assetSourceColumns: ['sku', 'name', 'image', 'weight'],
  assetKeyColumn: 'sku',
  rotationWeightColumn: 'weight',
  assetGroupColumn: null,
  assetVariantColumn: null,
  reportingColumn: 'name',
  contentType: 'json',
  rowCount: 2,
  createdTime: '2026-03-01T08:00:00.000Z',
  updatedTime: '2026-03-01T08:00:00.000Z',
};
const EXAMPLE_REMOTE = {
  assetSourceName: 'Store prices',
  url: 'https://feeds.example.com/prices.csv',
  httpMethod: 'GET' as const,
  additionalParams: 'region=eu',
  cacheTime: 300,
  columnNames: ['sku', 'price'],
  assetKeyColumn: 'sku',
  contentType: 'csv' as const,
};
const EXAMPLE_RECOMMENDATION = {
  updateFrequency: 24,
  recommendationConfig: {
    type: 'content' as const,
    maxRecommendations: 5,
    recommendationMap: [
      { assetSourceColumn: 'category', dataType: 'string' as const, priority: 3 },
      { assetSourceColumn: 'price', dataType: 'numeric' as const, acceptedRange: 10 },
    ],
  },
};

const saved = (id: number, msg: string) => ({ id, msg });

/** Asset sources: list, detail, data, inline, remote and recommendation sources, and labels. */
export const assetSourceRoutes = [
  defineRoute({
    operationId: 'listAssetSources',
    method: 'get',
    path: '/v2/accounts/:accountId/asset-sources',
    tag: TAG,
    summary: 'List the asset sources of an account',
    description: 'In asset source id order. next and previous are "" when there is no adjacent page.',
    permission: ASSET_SOURCES_ACCESS.listAssetSources,
    scope: { account: 'accountId' },
    params: AccountPath,
    query: PageQuery,
    success: {
      status: 200,
      description: 'A page of asset sources',
      schema: Type.Object({
        assetSources: Type.Array(
          Type.Object({ assetSourceId: Type.Integer(), assetSourceName: Type.String(), assetSourceType: StringEnum(ASSET_SOURCE_TYPES) }),
        ),
        previous: EmptyOrUrl,
        next: EmptyOrUrl,
      }),
    },
    example: {
      params: { accountId: 1001 },
      query: { offset: 0, limit: 25 },
      response: { assetSources: [{ assetSourceId: 42, assetSourceName: 'Spring products', assetSourceType: 'inline' }], previous: '', next: '' },
    },
    async handle({ params, query, backends, links }) {
      const result = await backends.assetSources.listAssetSources({ accountId: params.accountId, page: query });
      return { body: { assetSources: result.assetSources, ...emptyAtEnds(links({ ...query, total: result.total })) } };
    },
  }),

  defineRoute({
    operationId: 'getAssetSource',
    method: 'get',
    path: '/v2/accounts/:accountId/asset-sources/:assetSourceId',
    tag: TAG,
    summary: 'Read an asset source',
    permission: ASSET_SOURCES_ACCESS.getAssetSource,
    scope: { account: 'accountId' },
    params: SourcePath,
    success: { status: 200, description: 'The asset source', schema: Detail },
    problems: ['ASSET_SOURCE_NOT_FOUND'],
    example: { params: { accountId: 1001, assetSourceId: 42 }, response: EXAMPLE_DETAIL },
    async handle({ params, backends }) {
      const result = await backends.assetSources.getAssetSource({ accountId: params.accountId, assetSourceId: params.assetSourceId });
      return { body: present(result.source) };
    },
  }),

  defineRoute({
    operationId: 'readAssetSourceData',
    method: 'get',
    path: '/v2/accounts/:accountId/asset-sources/:assetSourceId/data',
    tag: TAG,
    summary: 'Read a page of an asset source rows',
    description:
      'The detail plus a page of rows in source order; next and prev are "" at the ends. A remote source is fetched through the outbound guard unless its copy is younger than cacheTime; ' +
      'an unreachable remote or one answering an error status is 502, a refused URL or a body that does not parse as its contentType is 424, each naming the cause.',
    permission: ASSET_SOURCES_ACCESS.readAssetSourceData,
    scope: { account: 'accountId' },
    params: SourcePath,
    query: PageQuery,
    success: {
      status: 200,
      description: 'The asset source and a page of its rows',
      schema: Type.Object({ ...DetailMembers, data: Type.Array(Type.Object({}, { additionalProperties: true })), prev: EmptyOrUrl, next: EmptyOrUrl }),
    },
    problems: ['ASSET_SOURCE_NOT_FOUND', 'REMOTE_SOURCE_REFUSED', 'REMOTE_SOURCE_MALFORMED', 'REMOTE_SOURCE_UNREACHABLE', 'REMOTE_SOURCE_BAD_STATUS'],
    example: {
      params: { accountId: 1001, assetSourceId: 42 },
      query: { offset: 0, limit: 25 },
      response: { ...EXAMPLE_DETAIL, data: EXAMPLE_INLINE.data, prev: '', next: '' },
    },
    async handle({ params, query, backends, links }) {
      const result = await backends.assetSources.readAssetSourceData({ accountId: params.accountId, assetSourceId: params.assetSourceId, page: query });
      const pages = emptyAtEnds(links({ ...query, total: result.total }));
      return { body: { ...present(result.source), data: JSON.parse(result.rowsJson) as unknown[], prev: pages.previous, next: pages.next } };
    },
  }),

  defineRoute({
    operationId: 'listAssetSourceLabels',
    method: 'get',
    path: '/v2/accounts/:accountId/asset-sources/:objId/labels',
    tag: TAG,
    summary: 'List the labels of an asset source',
    description: 'In label order. next and previous are "" when there is no adjacent page.',
    permission: ASSET_SOURCES_ACCESS.listLabels,
    scope: { account: 'accountId' },
    params: LabelPath,
    query: PageQuery,
    success: {
      status: 200,
      description: 'A page of labels',
      schema: Type.Object({ labels: Type.Array(Type.String()), previous: EmptyOrUrl, next: EmptyOrUrl }),
    },
    problems: ['ASSET_SOURCE_NOT_FOUND'],
    example: { params: { accountId: 1001, objId: 42 }, query: { offset: 0, limit: 25 }, response: { labels: ['spring', 'sale'], previous: '', next: '' } },
    async handle({ params, query, backends, links }) {
      const result = await backends.assetSources.listLabels({ accountId: params.accountId, assetSourceId: params.objId, page: query });
      return { body: { labels: result.labels, ...emptyAtEnds(links({ ...query, total: result.total })) } };
    },
  }),

  defineRoute({
    operationId: 'addAssetSourceLabel',
    method: 'post',
    path: '/v2/accounts/:accountId/asset-sources/:objId/labels',
    tag: TAG,
    summary: 'Label an asset source (idempotent)',
    description: 'Adding a label the source already has changes nothing and answers 200.',
    permission: ASSET_SOURCES_ACCESS.addLabel,
    scope: { account: 'accountId' },
    params: LabelPath,
    body: LabelBody,
    success: {
      status: 201,
      description: 'Label added',
      schema: Type.Object({ msg: Type.String() }),
      alternatives: [{ status: 200, description: 'The source already had the label' }],
    },
    problems: ['ASSET_SOURCE_NOT_FOUND'],
    example: { params: { accountId: 1001, objId: 42 }, request: { label: 'spring' }, response: { msg: 'Label added.' } },
    async handle({ params, body, backends }) {
      const result = await backends.assetSources.addLabel({ accountId: params.accountId, assetSourceId: params.objId, label: body.label });
      return result.added ? { status: 201, body: { msg: 'Label added.' } } : { status: 200, body: { msg: 'The asset source already has this label.' } };
    },
  }),

  defineRoute({
    operationId: 'deleteAssetSourceLabel',
    method: 'delete',
    path: '/v2/accounts/:accountId/asset-sources/:objId/labels',
    tag: TAG,
    summary: 'Remove a label from an asset source',
    description: 'The label travels in the body. 200 with no body; a label the source does not have is 404.',
    permission: ASSET_SOURCES_ACCESS.deleteLabel,
    scope: { account: 'accountId' },
    params: LabelPath,
    body: LabelBody,
    success: { status: 200, description: 'Removed (no body)' },
    problems: ['ASSET_SOURCE_NOT_FOUND', 'LABEL_NOT_FOUND'],
    example: { params: { accountId: 1001, objId: 42 }, request: { label: 'spring' } },
    async handle({ params, body, backends }) {
      await backends.assetSources.deleteLabel({ accountId: params.accountId, assetSourceId: params.objId, label: body.label });
      return {};
    },
  }),

  defineRoute({
    operationId: 'createInlineAssetSource',
    method: 'post',
    path: '/v2/accounts/:accountId/asset-sources/inline',
    tag: TAG,
    summary: 'Create an inline asset source',
    description:
      'Every row key must be one of columnNames; the key, variant, group, reporting and rotation-weight columns must be columns; rotation weights are numbers (or numeric text) of at least 0.',
    permission: ASSET_SOURCES_ACCESS.createInlineSource,
    scope: { account: 'accountId' },
    params: AccountPath,
    body: InlineBody,
    success: { status: 201, description: 'Created', schema: Saved },
    example: { params: { accountId: 1001 }, request: EXAMPLE_INLINE, response: saved(42, 'Inline asset source created.') },
    async handle({ params, body, backends }) {
      const result = await backends.assetSources.createInlineSource({
        accountId: params.accountId,
        fields: inlineFieldsOf(body),
      });
      return { status: 201, body: saved(result.assetSourceId, 'Inline asset source created.') };
    },
  }),

  defineRoute({
    operationId: 'replaceInlineAssetSource',
    method: 'put',
    path: '/v2/accounts/:accountId/asset-sources/inline/:assetSourceId',
    tag: TAG,
    summary: 'Replace an inline asset source',
    description: 'Every member as on create; the rows are replaced. A source of another kind is 409.',
    permission: ASSET_SOURCES_ACCESS.replaceInlineSource,
    scope: { account: 'accountId' },
    params: SourcePath,
    body: InlineBody,
    success: { status: 200, description: 'Replaced', schema: Saved },
    problems: ['ASSET_SOURCE_NOT_FOUND', 'ASSET_SOURCE_KIND_MISMATCH', 'ASSET_SOURCE_IN_USE'],
    example: { params: { accountId: 1001, assetSourceId: 42 }, request: EXAMPLE_INLINE, response: saved(42, 'Inline asset source updated.') },
    async handle({ params, body, backends }) {
      const result = await backends.assetSources.replaceInlineSource({
        accountId: params.accountId,
        assetSourceId: params.assetSourceId,
        fields: inlineFieldsOf(body),
      });
      return { body: saved(result.assetSourceId, 'Inline asset source updated.') };
    },
  }),

  defineRoute({
    operationId: 'patchInlineAssetSource',
    method: 'patch',
    path: '/v2/accounts/:accountId/asset-sources/inline/:assetSourceId',
    tag: TAG,
    summary: 'Change members of an inline asset source',
    description:
      'Only the members the body names change (a special column given as null is cleared); the result must satisfy every rule of create, the stored rows included when data is not given.',
    permission: ASSET_SOURCES_ACCESS.patchInlineSource,
    scope: { account: 'accountId' },
    params: SourcePath,
    body: InlinePatchBody,
    success: { status: 200, description: 'Changed', schema: Saved },
    problems: ['ASSET_SOURCE_NOT_FOUND', 'ASSET_SOURCE_KIND_MISMATCH', 'ASSET_SOURCE_IN_USE'],
    example: {
      params: { accountId: 1001, assetSourceId: 42 },
      request: { assetSourceName: 'Summer products', reportingColumn: null },
      response: saved(42, 'Inline asset source updated.'),
    },
    async handle({ params, body, backends }) {
      const result = await backends.assetSources.patchInlineSource({
        accountId: params.accountId,
        assetSourceId: params.assetSourceId,
        presentFields: Object.keys(body),
        fields: {
          assetSourceName: body.assetSourceName ?? '',
          columnNames: body.columnNames ?? [],
          columns: columnsOf(body),
          contentType: body.contentType ?? undefined,
          rowsJson: body.data === undefined ? '' : JSON.stringify(body.data),
        },
      });
      return { body: saved(result.assetSourceId, 'Inline asset source updated.') };
    },
  }),

  defineRoute({
    operationId: 'createRemoteAssetSource',
    method: 'post',
    path: '/v2/accounts/:accountId/asset-sources/remote',
    tag: TAG,
    summary: 'Create a remote asset source',
    description: 'The URL is fetched when the data is read, not now. Rows are the parsed records projected onto columnNames.',
    permission: ASSET_SOURCES_ACCESS.createRemoteSource,
    scope: { account: 'accountId' },
    params: AccountPath,
    body: RemoteBody,
    success: { status: 201, description: 'Created', schema: Saved },
    example: { params: { accountId: 1001 }, request: EXAMPLE_REMOTE, response: saved(43, 'Remote asset source created.') },
    async handle({ params, body, backends }) {
      const result = await backends.assetSources.createRemoteSource({ accountId: params.accountId, fields: remoteFieldsOf(body) });
      return { status: 201, body: saved(result.assetSourceId, 'Remote asset source created.') };
    },
  }),

  defineRoute({
    operationId: 'replaceRemoteAssetSource',
    method: 'put',
    path: '/v2/accounts/:accountId/asset-sources/remote/:assetSourceId',
    tag: TAG,
    summary: 'Replace a remote asset source',
    description: 'Every member as on create; the cached copy is dropped, so the next read fetches with the new settings. A source of another kind is 409.',
    permission: ASSET_SOURCES_ACCESS.replaceRemoteSource,
    scope: { account: 'accountId' },
    params: SourcePath,
    body: RemoteBody,
    success: { status: 200, description: 'Replaced', schema: Saved },
    problems: ['ASSET_SOURCE_NOT_FOUND', 'ASSET_SOURCE_KIND_MISMATCH', 'ASSET_SOURCE_IN_USE'],
    example: { params: { accountId: 1001, assetSourceId: 43 }, request: EXAMPLE_REMOTE, response: saved(43, 'Remote asset source updated.') },
    async handle({ params, body, backends }) {
      const result = await backends.assetSources.replaceRemoteSource({
        accountId: params.accountId,
        assetSourceId: params.assetSourceId,
        fields: remoteFieldsOf(body),
      });
      return { body: saved(result.assetSourceId, 'Remote asset source updated.') };
    },
  }),

  defineRoute({
    operationId: 'createRecommendationAssetSource',
    method: 'post',
    path: '/v2/accounts/:accountId/asset-sources/:sourceAssetSourceId/recommendation',
    tag: TAG,
    summary: 'Create a recommendation source over an asset source',
    description:
      'For each item of the source (by its assetKeyColumn), the top maxRecommendations other items, stored as rows {itemKey, recommendedItemKey, rank, score}. ' +
      'content: each mapped string column adds its priority when two items hold the same value, each numeric column adds 1 when they differ by at most acceptedRange; items sharing nothing are left out; ties go by source row order. ' +
      'collaborative: the number of cookies (of cookieGroup) that interacted with both items; hybrid: the sum of both. Collaborative and hybrid are empty until interaction events exist (see the events extension). ' +
      'Recomputed when the source changes and every updateFrequency hours. A source without an assetKeyColumn is 409.',
    permission: ASSET_SOURCES_ACCESS.createRecommendationSource,
    scope: { account: 'accountId' },
    params: RecommendationCreatePath,
    body: RecommendationBody,
    success: { status: 201, description: 'Created', schema: Saved },
    problems: ['ASSET_SOURCE_NOT_FOUND', 'ASSET_SOURCE_KIND_MISMATCH', 'ASSET_SOURCE_HAS_NO_KEY', 'RECOMMENDATION_SOURCE_TOO_LARGE'],
    example: {
      params: { accountId: 1001, sourceAssetSourceId: 42 },
      request: EXAMPLE_RECOMMENDATION,
      response: saved(44, 'Recommendation asset source created.'),
    },
    async handle({ params, body, backends }) {
      const result = await backends.assetSources.createRecommendationSource({
        accountId: params.accountId,
        sourceAssetSourceId: params.sourceAssetSourceId,
        updateFrequency: body.updateFrequency,
        config: recommendationConfigOf(body),
      });
      return { status: 201, body: saved(result.assetSourceId, 'Recommendation asset source created.') };
    },
  }),

  defineRoute({
    operationId: 'replaceRecommendationAssetSource',
    method: 'put',
    path: '/v2/accounts/:accountId/asset-sources/:sourceAssetSourceId/recommendation/:assetSourceId',
    tag: TAG,
    summary: 'Replace the settings of a recommendation source',
    description: 'Body and rules as on create; the recommendations are recomputed at once.',
    permission: ASSET_SOURCES_ACCESS.replaceRecommendationSource,
    scope: { account: 'accountId' },
    params: RecommendationPath,
    body: RecommendationBody,
    success: { status: 200, description: 'Replaced', schema: Saved },
    problems: ['ASSET_SOURCE_NOT_FOUND', 'ASSET_SOURCE_KIND_MISMATCH', 'ASSET_SOURCE_HAS_NO_KEY', 'RECOMMENDATION_SOURCE_TOO_LARGE'],
    example: {
      params: { accountId: 1001, sourceAssetSourceId: 42, assetSourceId: 44 },
      request: EXAMPLE_RECOMMENDATION,
      response: saved(44, 'Recommendation asset source updated.'),
    },
    async handle({ params, body, backends }) {
      const result = await backends.assetSources.replaceRecommendationSource({
        accountId: params.accountId,
        sourceAssetSourceId: params.sourceAssetSourceId,
        assetSourceId: params.assetSourceId,
        updateFrequency: body.updateFrequency,
        config: recommendationConfigOf(body),
      });
      return { body: saved(result.assetSourceId, 'Recommendation asset source updated.') };
    },
  }),

  defineRoute({
    operationId: 'recordRecommendationEvent',
    method: 'post',
    path: '/v2/accounts/:accountId/asset-sources/:assetSourceId/recommendation/events',
    tag: TAG,
    summary: 'Record an interaction of a cookie with an item',
    description:
      "For collaborative and hybrid recommendation sources: the event is recorded in the source's cookieGroup and every recommendation source of that group is recomputed. A content source is 409.",
    permission: ASSET_SOURCES_ACCESS.recordRecommendationEvent,
    scope: { account: 'accountId' },
    extension: true,
    params: SourcePath,
    body: EventBody,
    success: { status: 201, description: 'Recorded', schema: Type.Object({ msg: Type.String() }) },
    problems: ['ASSET_SOURCE_NOT_FOUND', 'ASSET_SOURCE_KIND_MISMATCH', 'RECOMMENDATION_TAKES_NO_EVENTS'],
    example: {
      params: { accountId: 1001, assetSourceId: 44 },
      request: { cookieId: 'c-8f2e', itemKey: 'A1', eventType: 'view' },
      response: { msg: 'Event recorded.' },
    },
    async handle({ params, body, backends }) {
      await backends.assetSources.recordRecommendationEvent({ accountId: params.accountId, assetSourceId: params.assetSourceId, ...body });
      return { status: 201, body: { msg: 'Event recorded.' } };
    },
  }),

  defineRoute({
    operationId: 'fillMotionDesignAssetSource',
    method: 'put',
    path: '/v2/accounts/:accountId/asset-sources/:destAssetSourceId/motion-design',
    tag: TAG,
    summary: 'Fill (or create) a motion-design source from campaign assets',
    description:
      'Each assetSourceMap entry puts an asset, named by its asset-library path, in a column: the destination holds one row, its columns those of the map, in order. ' +
      'destAssetSourceId 0 creates a motion-design source (201); an existing one of the account has its name, columns and row replaced (200); a source of another kind is 409. ' +
      'The campaign must be a dynamic campaign of the account, read on behalf of the caller (so the key also needs DynamicCampaigns_View). ' +
      "Each asset path must obey the asset-library path rules and exist as a file of the account's asset library (400 ASSET_NOT_FOUND naming the path otherwise; nothing stored).",
    permission: ASSET_SOURCES_ACCESS.fillMotionDesignSource,
    scope: { account: 'accountId' },
    params: MotionDesignPath,
    body: MotionDesignBody,
    success: {
      status: 200,
      description: 'Filled',
      schema: Type.Object({ destinationAssetSourceId: Type.Integer() }),
      alternatives: [{ status: 201, description: 'Created (destAssetSourceId 0)' }],
    },
    problems: ['ASSET_SOURCE_NOT_FOUND', 'ASSET_SOURCE_KIND_MISMATCH', 'DYNAMIC_CAMPAIGN_NOT_FOUND'],
    example: {
      params: { accountId: 1001, destAssetSourceId: 0 },
      request: {
        campaignId: '17',
        destinationAssetSourceName: 'Spring motion',
        assetSourceMap: [
          { assetId: 'motion/spring-intro.mp4', assetSourceColumn: 'introVideo' },
          { assetId: 'motion/logo.png', assetSourceColumn: 'logo' },
        ],
      },
      response: { destinationAssetSourceId: 45 },
    },
    async handle({ params, body, backends }) {
      const result = await backends.assetSources.fillMotionDesignSource({ accountId: params.accountId, destAssetSourceId: params.destAssetSourceId, ...body });
      return { status: params.destAssetSourceId === 0 ? 201 : 200, body: { destinationAssetSourceId: result.destinationAssetSourceId } };
    },
  }),
];

/** What create and replace send for an inline source: every member, the rows as JSON text. */
function inlineFieldsOf(body: Static<typeof InlineBody>): v1.InlineSourceFields {
  return {
    assetSourceName: body.assetSourceName,
    columnNames: body.columnNames,
    columns: columnsOf(body),
    contentType: body.contentType ?? undefined,
    rowsJson: JSON.stringify(body.data),
  };
}

function remoteFieldsOf(
  body: {
    assetSourceName: string;
    columnNames: string[];
    contentType: string;
    url: string;
    httpMethod?: string;
    additionalParams?: string;
    cacheTime?: number;
  } & SpecialColumnBody,
): v1.RemoteSourceFields {
  return {
    assetSourceName: body.assetSourceName,
    columnNames: body.columnNames,
    columns: columnsOf(body),
    contentType: body.contentType,
    remote: { url: body.url, httpMethod: body.httpMethod ?? 'GET', additionalParams: body.additionalParams ?? '', cacheTime: body.cacheTime ?? 0 },
  };
}
