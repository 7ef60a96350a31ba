import { Type, type Static, type TSchema } from '@sinclair/typebox';
import {
  CACHED_VIEWS,
  TEMPLATES_ACCESS,
  TEMPLATE_AD_FORMAT_MAX,
  TEMPLATE_CANVAS_MAX,
  TEMPLATE_CATEGORY_MAX,
  TEMPLATE_COLOR_PATTERN,
  TEMPLATE_CREATIVE_STYLES,
  TEMPLATE_DIMENSION_MAX,
  TEMPLATE_DIMENSION_PATTERN,
  TEMPLATE_FONT_SIZE_MAX,
  TEMPLATE_INVENTORY_TYPES,
  TEMPLATE_LAYOUTS_MAX,
  TEMPLATE_LIST_MAX_ITEMS,
  TEMPLATE_NAME_MAX,
  TEMPLATE_OWNERSHIPS,
  TEMPLATE_PRODUCT_INFORMATION_SOURCES,
  TEMPLATE_PRODUCT_SELECTION_METHODS,
  TEMPLATE_TEXT_MAX,
  TEMPLATE_TYPES,
  type TemplateLayout,
} from '@contracts/domain';
import { templatesV1 as v1 } from '@contracts/proto';
import { PageQuery } from '../http/pagination';
import { templateThumbnailUrl } from '../uploads/files.router';
import { AccountId, BoundedString, DrawnText, Idx, Int32, Int64, Message, PathParams, PageLinksSchema, StringEnum } from './common.schemas';
import { defineRoute } from './route.types';
import { publicBase } from './storage.routes';

const TAG = 'templates';

// --- the layout, as requests carry it (bounded) and as responses show it ------------------------

const Coordinate = (description: string) => Int32({ minimum: 0, maximum: TEMPLATE_CANVAS_MAX, description });
const BoxSchema = Type.Object(
  { x: Coordinate('Left edge, px'), y: Coordinate('Top edge, px'), w: Coordinate('Width, px'), h: Coordinate('Height, px') },
  { additionalProperties: false, description: 'A rectangle on the canvas, in pixels from the top left corner.' },
);
const Color = BoundedString(7, { pattern: TEMPLATE_COLOR_PATTERN, description: '#rrggbb' });
const textMembers = {
  box: BoxSchema,
  color: Color,
  fontSize: Int32({ minimum: 1, maximum: TEMPLATE_FONT_SIZE_MAX, description: 'Font size, px' }),
  text: DrawnText(TEMPLATE_TEXT_MAX, 'Placeholder text'),
};
const TextElement = Type.Object(textMembers, { additionalProperties: false });
const ButtonElement = Type.Object({ ...textMembers, backgroundColor: Color }, { additionalProperties: false });
const Dimension = BoundedString(TEMPLATE_DIMENSION_MAX, { pattern: TEMPLATE_DIMENSION_PATTERN, description: '<width>x<height> in pixels' });
const LayoutSchema = Type.Object(
  {
    dimension: Dimension,
    backgroundColor: Color,
    logo: BoxSchema,
    productImage: BoxSchema,
    headline: TextElement,
    price: TextElement,
    callToAction: ButtonElement,
  },
  { additionalProperties: false, description: 'How the template lays out one dimension; every box lies inside the canvas.' },
);

const Strings = <T extends TSchema>(items: T, description: string) => Type.Array(items, { maxItems: TEMPLATE_LIST_MAX_ITEMS, description });
const Category = BoundedString(TEMPLATE_CATEGORY_MAX, { minLength: 1 });

const RetailTemplate = Type.Object(
  {
    templateIdx: Type.Integer(),
    templateName: Type.String(),
    ownership: StringEnum(TEMPLATE_OWNERSHIPS, { description: 'System templates are shared by every account; a Custom one belongs to one account.' }),
    isBookmarked: Type.Boolean({ description: 'Whether the calling account bookmarked it.' }),
    retailerId: Type.Integer(),
    inventoryType: StringEnum(TEMPLATE_INVENTORY_TYPES),
    adFormat: Type.String(),
    sourceOfProductInformation: StringEnum(TEMPLATE_PRODUCT_INFORMATION_SOURCES),
    productSelectionMethod: StringEnum(TEMPLATE_PRODUCT_SELECTION_METHODS),
    creativeStyle: Type.Array(StringEnum(TEMPLATE_CREATIVE_STYLES)),
    category: Type.Array(Type.String()),
    templateType: Type.Array(StringEnum(TEMPLATE_TYPES)),
    dimensions: Type.Array(Type.String(), { description: 'Every dimension the template lays out, <width>x<height>.' }),
    thumbnailUrl: Type.String({
      format: 'uri',
      description:
        'Absolute URL of a PNG (at most 240 px on its longest edge) drawn from the first layout when the template was stored, served without an API key ' +
        'under /files/templates/. The URL names the content (a SHA-256 of the layout), so it never changes meaning: it is served with ' +
        "`Cache-Control: public, max-age=31536000, immutable` and an ETag, and a changed layout gets a new URL. A Custom template's thumbnail is as public " +
        'as its URL; the hash is not guessable without the layout itself.',
    }),
    layouts: Type.Optional(Type.Array(LayoutSchema, { description: 'One layout per dimension, in the order of dimensions. Only with include=layouts.' })),
    createdTime: Type.String({ format: 'date-time' }),
    updatedTime: Type.String({ format: 'date-time' }),
  },
  { description: 'A retail template.' },
);

const present = (t: v1.Template, base: string, withLayouts: boolean) => ({
  templateIdx: t.templateIdx,
  templateName: t.templateName,
  ownership: t.ownership,
  isBookmarked: t.isBookmarked,
  retailerId: t.retailerId,
  inventoryType: t.inventoryType,
  adFormat: t.adFormat,
  sourceOfProductInformation: t.sourceOfProductInformation,
  productSelectionMethod: t.productSelectionMethod,
  creativeStyle: t.creativeStyle,
  category: t.category,
  templateType: t.templateType,
  dimensions: t.dimensions,
  thumbnailUrl: templateThumbnailUrl(base, t.thumbnailKey),
  ...(withLayouts ? { layouts: t.layouts } : {}),
  createdTime: t.createdTime,
  updatedTime: t.updatedTime,
});

// Examples the document shows; openapi-coverage.spec.ts checks each against its schema.
const EXAMPLE_LAYOUT: TemplateLayout = {
  dimension: '300x250',
  backgroundColor: '#0b3d91',
  logo: { x: 18, y: 18, w: 105, h: 25 },
  productImage: { x: 18, y: 38, w: 264, h: 113 },
  headline: { box: { x: 18, y: 155, w: 264, h: 25 }, color: '#ffffff', fontSize: 18, text: 'Fresh deals this week' },
  price: { box: { x: 18, y: 185, w: 120, h: 20 }, color: '#ffcc00', fontSize: 18, text: '$9.99' },
  callToAction: { box: { x: 150, y: 210, w: 132, h: 25 }, color: '#0b3d91', backgroundColor: '#ffcc00', fontSize: 15, text: 'Shop now' },
};
const EXAMPLE_TEMPLATE = {
  templateIdx: 1,
  templateName: 'Northmart Static Banner Display Banner 1',
  ownership: 'System',
  isBookmarked: false,
  retailerId: 101,
  inventoryType: 'offsite',
  adFormat: 'Display Banner',
  sourceOfProductInformation: 'Upload Your Own Assets',
  productSelectionMethod: 'Fixed Product Selection',
  creativeStyle: ['Static Banner', 'Animated Carousel'],
  category: ['Grocery', 'Pets'],
  templateType: ['Standard', 'Geo Feed'],
  dimensions: ['300x250'],
  thumbnailUrl: 'https://api.example.com/files/templates/5d1f0c6a3e8b2f9d4c7a1e0b6f3d2c8a9e4b7f1a0c5d3e2b8f6a9c4d1e7b0a3f.png',
  createdTime: '2026-03-01T08:00:00.000Z',
  updatedTime: '2026-03-01T08:00:00.000Z',
};

const AccountPath = PathParams({ accountId: AccountId });

/** What a search page may carry beyond the summary of each template. */
const SEARCH_INCLUDES = ['layouts'] as const;
const SearchQuery = Type.Object(
  {
    ...PageQuery.properties,
    include: Type.Optional(
      StringEnum(SEARCH_INCLUDES, { description: 'layouts: each template also carries its layouts (a few KB each); without it a page carries none.' }),
    ),
  },
  { additionalProperties: false },
);
const TemplatePath = PathParams({ accountId: AccountId, templateIdx: Idx });

const FiltersBody = Type.Object(
  {
    campaignName: Type.Optional(BoundedString(TEMPLATE_NAME_MAX, { description: 'Case-insensitive substring of templateName.' })),
    ownership: Type.Optional(StringEnum(TEMPLATE_OWNERSHIPS)),
    isBookmarked: Type.Optional(Type.Boolean({ description: 'true: only templates the account bookmarked; false: only those it did not.' })),
    retailerId: Type.Optional(Int64({ minimum: 1 })),
    inventoryType: Type.Optional(StringEnum(TEMPLATE_INVENTORY_TYPES)),
    adFormat: Type.Optional(BoundedString(TEMPLATE_AD_FORMAT_MAX, { description: 'Exact ad format, compared case-insensitively.' })),
    sourceOfProductInformation: Type.Optional(StringEnum(TEMPLATE_PRODUCT_INFORMATION_SOURCES)),
    productSelectionMethod: Type.Optional(StringEnum(TEMPLATE_PRODUCT_SELECTION_METHODS)),
    creativeStyle: Type.Optional(Strings(StringEnum(TEMPLATE_CREATIVE_STYLES), 'Templates with any of these styles.')),
    category: Type.Optional(Strings(Category, 'Templates in any of these categories (compared case-insensitively).')),
    templateType: Type.Optional(Strings(StringEnum(TEMPLATE_TYPES), 'Templates of any of these types.')),
  },
  { additionalProperties: false },
);

const CustomTemplateBody = Type.Object(
  {
    templateName: BoundedString(TEMPLATE_NAME_MAX, { minLength: 1 }),
    retailerId: Int64({ minimum: 1 }),
    inventoryType: StringEnum(TEMPLATE_INVENTORY_TYPES),
    adFormat: BoundedString(TEMPLATE_AD_FORMAT_MAX, { minLength: 1 }),
    sourceOfProductInformation: StringEnum(TEMPLATE_PRODUCT_INFORMATION_SOURCES),
    productSelectionMethod: StringEnum(TEMPLATE_PRODUCT_SELECTION_METHODS),
    creativeStyle: Strings(StringEnum(TEMPLATE_CREATIVE_STYLES), 'Creative styles.'),
    category: Strings(Category, 'Categories.'),
    templateType: Strings(StringEnum(TEMPLATE_TYPES), 'Template types.'),
    layouts: Type.Array(LayoutSchema, { minItems: 1, maxItems: TEMPLATE_LAYOUTS_MAX }),
  },
  {
    additionalProperties: false,
    description: 'A Custom template: every field of the record except those the service derives (dimensions, thumbnail, ownership).',
  },
);

const EXAMPLE_CUSTOM_TEMPLATE: Static<typeof CustomTemplateBody> = {
  templateName: 'Spring banner',
  retailerId: 101,
  inventoryType: 'onsite',
  adFormat: 'Display Banner',
  sourceOfProductInformation: 'Hybrid',
  productSelectionMethod: 'Fixed Product Selection',
  creativeStyle: ['Static Banner'],
  category: ['Grocery'],
  templateType: ['Custom'],
  layouts: [EXAMPLE_LAYOUT],
};

/** Retail template search (the System catalog and the account's own Custom templates), custom templates and bookmarks. */
export const templateRoutes = [
  defineRoute({
    operationId: 'searchRetailTemplates',
    method: 'post',
    path: '/v2/accounts/:accountId/retail-campaigns/retail-templates',
    tag: TAG,
    summary: 'Search retail templates',
    description:
      'Every filter is optional and all given filters must hold; an array filter matches a template holding any of its values, and an empty array does not filter. ' +
      'The account sees the System templates and its own Custom templates. Results are ordered by templateIdx ascending; count is the number of matches. ' +
      'Each template names its thumbnail by URL; its layouts come only with include=layouts, so a page of 25 without them stays under 20 KB.',
    permission: TEMPLATES_ACCESS.searchTemplates,
    scope: { account: 'accountId' },
    cache: { view: CACHED_VIEWS.retailTemplates },
    params: AccountPath,
    query: SearchQuery,
    body: FiltersBody,
    success: {
      status: 200,
      description: 'A page of matching templates',
      schema: Type.Object({ count: Type.Integer(), ...PageLinksSchema, templates: Type.Array(RetailTemplate) }),
    },
    example: {
      params: { accountId: 1001 },
      query: { offset: 0, limit: 25 },
      request: { inventoryType: 'offsite', creativeStyle: ['Static Banner', 'Video'], campaignName: 'northmart' },
      response: { count: 1, next: null, previous: null, templates: [EXAMPLE_TEMPLATE] },
    },
    async handle({ req, params, query, body, backends, links }) {
      const includeLayouts = query.include === 'layouts';
      const result = await backends.templates.searchTemplates({
        accountId: params.accountId,
        filters: { ...body, creativeStyle: body.creativeStyle ?? [], category: body.category ?? [], templateType: body.templateType ?? [] },
        page: { offset: query.offset, limit: query.limit },
        includeLayouts,
      });
      const base = publicBase(req, links);
      return {
        body: {
          count: result.total,
          ...links({ ...query, total: result.total }),
          templates: result.templates.map((t) => present(t, base, includeLayouts)),
        },
      };
    },
  }),

  defineRoute({
    operationId: 'createRetailTemplate',
    method: 'post',
    path: '/v2/accounts/:accountId/retail-campaigns/retail-templates/custom',
    tag: TAG,
    summary: 'Create a Custom retail template for the account',
    description: 'The template is visible to this account only. Its dimensions are those of its layouts; its thumbnail is rendered from the first layout.',
    permission: TEMPLATES_ACCESS.createTemplate,
    scope: { account: 'accountId' },
    extension: true,
    params: AccountPath,
    body: CustomTemplateBody,
    success: { status: 201, description: 'Created', schema: Type.Object({ templateIdx: Type.Integer() }) },
    problems: ['OBJECT_STORE_UNAVAILABLE'],
    example: {
      params: { accountId: 1001 },
      request: EXAMPLE_CUSTOM_TEMPLATE,
      response: { templateIdx: 120 },
    },
    async handle({ params, body, backends }) {
      const result = await backends.templates.createTemplate({ accountId: params.accountId, ...body });
      return { status: 201, body: { templateIdx: result.templateIdx } };
    },
  }),

  defineRoute({
    operationId: 'updateRetailTemplate',
    method: 'put',
    path: '/v2/accounts/:accountId/retail-campaigns/retail-templates/:templateIdx',
    tag: TAG,
    summary: 'Replace one of the account Custom templates',
    description:
      'Every field is replaced, as on create; dimensions follow the layouts and the thumbnail is rendered again. Only a Custom template of this account can be changed; a System template answers 409.',
    permission: TEMPLATES_ACCESS.updateTemplate,
    scope: { account: 'accountId' },
    extension: true,
    params: TemplatePath,
    body: CustomTemplateBody,
    success: { status: 200, description: 'Replaced', schema: Message },
    problems: ['TEMPLATE_NOT_FOUND', 'TEMPLATE_NOT_EDITABLE', 'OBJECT_STORE_UNAVAILABLE'],
    example: { params: { accountId: 1001, templateIdx: 120 }, request: EXAMPLE_CUSTOM_TEMPLATE, response: { message: 'Template updated.' } },
    async handle({ params, body, backends }) {
      await backends.templates.updateTemplate({ accountId: params.accountId, templateIdx: params.templateIdx, ...body });
      return { body: { message: 'Template updated.' } };
    },
  }),

  defineRoute({
    operationId: 'bookmarkRetailTemplate',
    method: 'put',
    path: '/v2/accounts/:accountId/retail-campaigns/retail-templates/:templateIdx/bookmark',
    tag: TAG,
    summary: 'Bookmark a retail template for the account (idempotent)',
    permission: TEMPLATES_ACCESS.setBookmark,
    scope: { account: 'accountId' },
    extension: true,
    params: TemplatePath,
    success: { status: 200, description: 'Bookmarked', schema: Message },
    problems: ['TEMPLATE_NOT_FOUND'],
    example: { params: { accountId: 1001, templateIdx: 1 }, response: { message: 'Template bookmarked.' } },
    async handle({ params, backends }) {
      await backends.templates.setBookmark({ accountId: params.accountId, templateIdx: params.templateIdx, bookmarked: true });
      return { body: { message: 'Template bookmarked.' } };
    },
  }),

  defineRoute({
    operationId: 'unbookmarkRetailTemplate',
    method: 'delete',
    path: '/v2/accounts/:accountId/retail-campaigns/retail-templates/:templateIdx/bookmark',
    tag: TAG,
    summary: 'Remove the account bookmark of a retail template (idempotent)',
    permission: TEMPLATES_ACCESS.setBookmark,
    scope: { account: 'accountId' },
    extension: true,
    params: TemplatePath,
    success: { status: 200, description: 'Not bookmarked', schema: Message },
    problems: ['TEMPLATE_NOT_FOUND'],
    example: { params: { accountId: 1001, templateIdx: 1 }, response: { message: 'Template bookmark removed.' } },
    async handle({ params, backends }) {
      await backends.templates.setBookmark({ accountId: params.accountId, templateIdx: params.templateIdx, bookmarked: false });
      return { body: { message: 'Template bookmark removed.' } };
    },
  }),

  defineRoute({
    operationId: 'deleteRetailTemplate',
    method: 'delete',
    path: '/v2/accounts/:accountId/retail-campaigns/retail-templates/:templateIdx',
    tag: TAG,
    summary: 'Delete one of the account Custom templates',
    description: 'Only a Custom template of this account can be deleted; a System template answers 409.',
    permission: TEMPLATES_ACCESS.deleteTemplate,
    scope: { account: 'accountId' },
    extension: true,
    params: TemplatePath,
    success: { status: 200, description: 'Deleted', schema: Message },
    problems: ['TEMPLATE_NOT_FOUND', 'TEMPLATE_NOT_DELETABLE'],
    example: { params: { accountId: 1001, templateIdx: 120 }, response: { message: 'Template deleted.' } },
    async handle({ params, backends }) {
      await backends.templates.deleteTemplate({ accountId: params.accountId, templateIdx: params.templateIdx });
      return { body: { message: 'Template deleted.' } };
    },
  }),
];
