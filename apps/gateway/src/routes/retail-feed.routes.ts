import { Type } from '@sinclair/typebox';
import { ASSET_SOURCES_ACCESS, RETAIL_FEED_FIELDS, RETAIL_FEED_QUERY_MAX } from '@contracts/domain';
import { PageQuery } from '../http/pagination';
import { AccountId, BoundedString, IdInt64, PathParams, StringEnum } from './common.schemas';
import { defineRoute } from './route.types';

const TAG = 'asset sources';

/** As the other asset-source lists: "" rather than null where there is no adjacent page. */
const EmptyOrUrl = Type.Union([Type.String({ format: 'uri' }), Type.Literal('')]);
const AccountPath = PathParams({ accountId: AccountId });

/** The account's retail feed source (an extension: any source of the account, a feed source among them) and `listRetailFeedValues`, the list of its values. */
export const retailFeedRoutes = [
  defineRoute({
    operationId: 'setRetailFeedSource',
    method: 'put',
    path: '/v2/accounts/:accountId/retail-feed-settings',
    tag: TAG,
    summary: "Designate the account's retail feed source",
    description:
      'Any asset source of the account (of any kind) becomes the source the retail feed list reads; one per account, a later one replaces it, ' +
      "and designating the current one again changes nothing (200). An unknown or another account's source is 404.",
    permission: ASSET_SOURCES_ACCESS.setRetailFeedSource,
    scope: { account: 'accountId' },
    extension: true,
    params: AccountPath,
    body: Type.Object({ assetSourceId: IdInt64({ minimum: 1, description: 'An asset source of the account.' }) }, { additionalProperties: false }),
    success: { status: 200, description: 'Designated', schema: Type.Object({ msg: Type.String() }) },
    problems: ['ASSET_SOURCE_NOT_FOUND'],
    example: { params: { accountId: 1001 }, request: { assetSourceId: 42 }, response: { msg: 'Retail feed source set.' } },
    async handle({ params, body, backends }) {
      await backends.assetSources.setRetailFeedSource({ accountId: params.accountId, assetSourceId: body.assetSourceId });
      return { body: { msg: 'Retail feed source set.' } };
    },
  }),

  defineRoute({
    operationId: 'getRetailFeedSource',
    method: 'get',
    path: '/v2/accounts/:accountId/retail-feed-settings',
    tag: TAG,
    summary: "Read the account's retail feed source",
    description: 'The designated asset source; 404 RETAIL_FEED_NOT_SET until one is designated.',
    permission: ASSET_SOURCES_ACCESS.getRetailFeedSource,
    scope: { account: 'accountId' },
    extension: true,
    params: AccountPath,
    success: { status: 200, description: 'The retail feed source', schema: Type.Object({ assetSourceId: Type.Integer() }) },
    problems: ['RETAIL_FEED_NOT_SET'],
    example: { params: { accountId: 1001 }, response: { assetSourceId: 42 } },
    async handle({ params, backends }) {
      const result = await backends.assetSources.getRetailFeedSource({ accountId: params.accountId });
      return { body: { assetSourceId: result.assetSourceId } };
    },
  }),

  defineRoute({
    operationId: 'listRetailFeedValues',
    method: 'get',
    path: '/v2/accounts/:accountId/retail-feed-settings/list',
    tag: TAG,
    summary: 'List the products, categories or sub-categories of the retail feed',
    description:
      "The distinct values of one field of the account's retail feed source (PUT .../retail-feed-settings; 404 RETAIL_FEED_NOT_SET until one is designated). " +
      'product reads the source asset key column (else a column named sku), category the column category, sub-category the column subCategory; ' +
      'a source without that column answers an empty list. Blank values are left out; values equal ignoring case are one value (its first spelling in binary order). ' +
      'In alphabetical order ignoring case (the Unicode collation, utf8mb4_unicode_ci); query keeps the values containing it, ignoring case. ' +
      'next and previous are "" when there is no adjacent page.',
    permission: ASSET_SOURCES_ACCESS.listRetailFeedValues,
    scope: { account: 'accountId' },
    params: AccountPath,
    query: Type.Object(
      {
        fields: StringEnum(RETAIL_FEED_FIELDS, { description: 'What to list: product, category or sub-category.' }),
        query: Type.Optional(BoundedString(RETAIL_FEED_QUERY_MAX, { description: 'Text the values must contain, ignoring case.' })),
        ...PageQuery.properties,
      },
      { additionalProperties: false },
    ),
    success: {
      status: 200,
      description: 'A page of values',
      schema: Type.Object({ values: Type.Array(Type.String()), previous: EmptyOrUrl, next: EmptyOrUrl }),
    },
    problems: [
      'RETAIL_FEED_NOT_SET',
      'ASSET_SOURCE_NOT_FOUND',
      'REMOTE_SOURCE_REFUSED',
      'REMOTE_SOURCE_MALFORMED',
      'REMOTE_SOURCE_UNREACHABLE',
      'REMOTE_SOURCE_BAD_STATUS',
    ],
    example: {
      params: { accountId: 1001 },
      query: { fields: 'category', query: 'sho', offset: 0, limit: 25 },
      response: { values: ['Shoes', 'Shorts'], previous: '', next: '' },
    },
    async handle({ params, query, backends, links }) {
      const result = await backends.assetSources.listRetailFeedValues({
        accountId: params.accountId,
        field: query.fields,
        query: query.query ?? '',
        page: { offset: query.offset, limit: query.limit },
      });
      // The list is not counted: a total one past this page when more follow gives the same links.
      const total = query.offset + result.values.length + (result.more ? 1 : 0);
      const pages = links({ offset: query.offset, limit: query.limit, total });
      return { body: { values: result.values, next: pages.next ?? '', previous: pages.previous ?? '' } };
    },
  }),
];
