import { Type } from '@sinclair/typebox';
import {
  CONTENT_MAP_AD_GROUPS_MAX,
  CONTENT_MAP_CONTENT_MAX,
  CONTENT_MAP_PLACEMENTS_MAX,
  CONTENT_MAP_TEXT_MAX,
  CONTENT_TYPES,
  CONTENT_CREATIVE_ACCESS,
  type ProblemCode,
} from '@contracts/domain';
import { contentCreativeV1 as v1 } from '@contracts/proto';
import { PageQuery } from '../http/pagination';
import { AccountId, BoundedString, Int64, Message, Nullable, PageLinksSchema, PathParams, StringEnum } from './common.schemas';
import { defineRoute } from './route.types';
import { cdnUrl, publicBase } from './storage.routes';

const TAG = 'content maps';

/** Reading and saving a map both resolve the campaign, the plan and the asset source the items come from. */
const CONTENT_MAP_PROBLEMS: ProblemCode[] = [
  'RETAIL_CAMPAIGN_NOT_FOUND',
  'MEDIA_PLAN_NOT_FOUND',
  'ASSET_SOURCE_NOT_FOUND',
  'REMOTE_SOURCE_REFUSED',
  'REMOTE_SOURCE_MALFORMED',
  'REMOTE_SOURCE_UNREACHABLE',
  'REMOTE_SOURCE_BAD_STATUS',
];

const MapPath = PathParams({
  accountId: AccountId,
  retailCampaignId: Int64({ minimum: 1, description: 'Retail campaign id' }),
  mediaPlanId: Int64({ minimum: 1, description: 'A media plan of that campaign' }),
});

const Text = (description?: string) => BoundedString(CONTENT_MAP_TEXT_MAX, { description });
/** Ids travel as decimal strings; the service checks the digits. */
const IdText = (description: string, minLength: number) => BoundedString(20, { minLength, description });

const PlacementIn = Type.Object(
  {
    placementId: IdText('A placement of the media plan.', 1),
    externalPlacementId: Type.Optional(Text()),
    placementName: Type.Optional(Text()),
    dimension: Type.Optional(Text()),
    siteId: Type.Optional(Text()),
    content: Type.Array(BoundedString(CONTENT_MAP_TEXT_MAX, { minLength: 1 }), {
      maxItems: CONTENT_MAP_CONTENT_MAX,
      description: 'SKUs, categories, sub-categories, brands or creative names, by contentType; empty when contentType is All.',
    }),
  },
  { additionalProperties: false },
);

const SaveBody = Type.Object(
  {
    contentType: StringEnum(CONTENT_TYPES, {
      description:
        'All is allowed only when every mapped placement is served by a social ad server and the campaign is not SBT; its content must then be empty.',
    }),
    dataServiceId: Type.Optional(
      Int64({
        minimum: 1,
        description:
          'The asset source the content values must exist in: Product values in its asset key column (else sku), Category in category, Sub-category in subCategory, Brand in brand.',
      }),
    ),
    adGroupPlacementCreativeMap: Type.Array(
      Type.Object(
        {
          adGroupId: IdText('An ad group of the campaign; empty for a campaign without ad groups.', 0),
          adGroupName: Type.Optional(Text()),
          status: Type.Optional(Text()),
          placementCreativeMap: Type.Array(PlacementIn, { maxItems: CONTENT_MAP_PLACEMENTS_MAX }),
        },
        { additionalProperties: false },
      ),
      { maxItems: CONTENT_MAP_AD_GROUPS_MAX, description: 'The whole map: saving replaces what was saved before.' },
    ),
  },
  { additionalProperties: false },
);

const ContentItem = Type.Object({
  contentValue: Nullable(Type.String()),
  displayValue: Nullable(Type.String({ description: 'From the asset source row (displayName, name, title or productName); null when not looked up.' })),
  productImageUrl: Nullable(Type.String({ description: 'From the asset source row (productImageUrl, imageUrl, image or image_url).' })),
  previewUrls: Nullable(
    Type.Array(Type.Object({ adUnitId: Type.Integer(), url: Nullable(Type.String()) }), {
      description:
        'The creative rendered for the placement and item by the newest completed preview export (see startExport, isPreviewExport); the product image for an item it did not draw, or until one exists.',
    }),
  ),
});
const PlacementOut = Type.Object({
  placementId: Nullable(Type.String()),
  externalPlacementId: Nullable(Type.String()),
  placementName: Nullable(Type.String()),
  dimension: Nullable(Type.String()),
  content: Type.Array(ContentItem),
});
const ContentMapOut = Type.Object({
  contentType: Nullable(Type.String()),
  numOfCards: Nullable(Type.Integer({ description: 'The largest number of content items on one placement: the cards a carousel shows.' })),
  placementContentMap: Nullable(Type.Array(PlacementOut, { description: 'Campaigns without ad groups; null for ad-group campaigns.' })),
  adGroupPlacementCreativeMap: Nullable(
    Type.Array(
      Type.Object({
        adGroupId: Nullable(Type.String()),
        adGroupName: Type.Array(Type.String()),
        status: Type.Array(Type.String()),
        placementCreativeMap: Type.Array(PlacementOut),
      }),
      { description: 'Ad-group campaigns; null for campaigns without ad groups.' },
    ),
  ),
  ...PageLinksSchema,
});

/** previewUrls: a rendered creative (objectPath) becomes its file URL; otherwise the url as the service gave it. */
const presentPlacement = (filesAt: (objectPath: string) => string) => (p: v1.PlacementContentRead) => ({
  placementId: p.placementId,
  externalPlacementId: p.externalPlacementId ?? null,
  placementName: p.placementName ?? null,
  dimension: p.dimension ?? null,
  content: p.content.map((c) => ({
    contentValue: c.contentValue,
    displayValue: c.displayValue ?? null,
    productImageUrl: c.productImageUrl ?? null,
    previewUrls: c.previewUrls.map((u) => ({ adUnitId: u.adUnitId, url: u.objectPath ? filesAt(u.objectPath) : (u.url ?? null) })),
  })),
});

const EXAMPLE_ITEM = {
  contentValue: 'SKU-1001',
  displayValue: 'Organic oat milk 1 l',
  productImageUrl: 'https://cdn.example.com/p/1001.jpg',
  previewUrls: [{ adUnitId: 31, url: 'https://cdn.example.com/p/1001.jpg' }],
};

/** The content map of a retail campaign's media plan: which products or creatives each placement (per ad group) shows. */
export const contentMapRoutes = [
  defineRoute({
    operationId: 'getContentMap',
    method: 'get',
    path: '/v2/accounts/:accountId/retail-campaigns/:retailCampaignId/media-plans/:mediaPlanId/content-map',
    tag: TAG,
    summary: 'Read the content map of a media plan',
    description:
      'placementContentMap for a campaign without ad groups, adGroupPlacementCreativeMap for an ad-group campaign; the other is null. ' +
      'Pages are of placements (or of ad groups, each with all its placements) in saved order. Items are enriched from the asset source the map was saved with.',
    permission: CONTENT_CREATIVE_ACCESS.getContentMap,
    scope: { account: 'accountId' },
    params: MapPath,
    query: PageQuery,
    success: { status: 200, description: 'The content map', schema: ContentMapOut },
    problems: CONTENT_MAP_PROBLEMS,
    example: {
      params: { accountId: 1001, retailCampaignId: 5, mediaPlanId: 9 },
      query: { offset: 0, limit: 25 },
      response: {
        contentType: 'Product',
        numOfCards: 1,
        placementContentMap: [{ placementId: '31', externalPlacementId: null, placementName: 'Home 300x250', dimension: '300x250', content: [EXAMPLE_ITEM] }],
        adGroupPlacementCreativeMap: null,
        next: null,
        previous: null,
      },
    },
    async handle({ params, query, backends, links, req }) {
      const map = await backends.contentCreative.getContentMap({ ...params, page: query });
      const base = publicBase(req, links);
      const present = presentPlacement((objectPath) => cdnUrl(base, params.accountId, objectPath));
      return {
        body: {
          contentType: map.contentType ?? null,
          numOfCards: map.numOfCards ?? null,
          placementContentMap: map.isAdGroupCampaign ? null : map.placementContentMap.map(present),
          adGroupPlacementCreativeMap: map.isAdGroupCampaign
            ? map.adGroupPlacementCreativeMap.map((g) => ({ ...g, placementCreativeMap: g.placementCreativeMap.map(present) }))
            : null,
          ...links({ ...query, total: map.total }),
        },
      };
    },
  }),

  defineRoute({
    operationId: 'saveContentMap',
    method: 'post',
    path: '/v2/accounts/:accountId/retail-campaigns/:retailCampaignId/media-plans/:mediaPlanId/content-map',
    tag: TAG,
    summary: 'Save the content map of a media plan',
    description:
      'Replaces the whole map at once. Ad groups must be ad groups of the campaign, placements placements of the media plan; ' +
      'with dataServiceId every content value must exist in that asset source (400 naming each missing value).',
    permission: CONTENT_CREATIVE_ACCESS.saveContentMap,
    scope: { account: 'accountId' },
    params: MapPath,
    body: SaveBody,
    success: { status: 200, description: 'Saved', schema: Message },
    problems: CONTENT_MAP_PROBLEMS,
    example: {
      params: { accountId: 1001, retailCampaignId: 5, mediaPlanId: 9 },
      request: {
        contentType: 'Product',
        dataServiceId: 42,
        adGroupPlacementCreativeMap: [{ adGroupId: '', placementCreativeMap: [{ placementId: '31', content: ['SKU-1001'] }] }],
      },
      response: { message: 'Content map saved: 1 placement.' },
    },
    async handle({ params, body, backends }) {
      const result = await backends.contentCreative.saveContentMap({ ...params, ...body });
      return { body: { message: `Content map saved: ${result.placements} placement${result.placements === 1 ? '' : 's'}.` } };
    },
  }),
];
