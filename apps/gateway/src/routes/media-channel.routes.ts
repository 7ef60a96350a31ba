import { Type } from '@sinclair/typebox';
import {
  ADDITIONAL_CONFIGURATION_MAX_BYTES,
  AD_SERVER_ID_MAX,
  CACHED_VIEWS,
  MEDIA_CHANNEL_NAME_MAX,
  MEDIA_CHANNEL_STATUSES,
  MEDIA_CHANNEL_TYPES,
  CHANNELS_PLANS_ACCESS,
  TEMPLATE_CAMPAIGN_CHANNEL_STATUS,
} from '@contracts/domain';
import { channelsPlansV1 as v1 } from '@contracts/proto';
import { PageQuery } from '../http/pagination';
import { PathParams, AccountId, BoundedString, FreeFormObject, Idx, Message, Nullable, OrgId, PageLinksSchema, StringEnum } from './common.schemas';
import { defineRoute } from './route.types';

const TAG = 'channels-plans';

// ---- Request schema: each writable field declared once; create and update pick from it. ----
const ActivationConfiguration = Type.Object({ tagGeneration: Type.Boolean(), creativeGeneration: Type.Boolean() }, { additionalProperties: false });
const Writable = {
  name: BoundedString(MEDIA_CHANNEL_NAME_MAX, { minLength: 1 }),
  adServerId: BoundedString(AD_SERVER_ID_MAX, { minLength: 1, description: 'An id from GET /v2/ad-servers' }),
  type: StringEnum(MEDIA_CHANNEL_TYPES, { description: 'Channel type' }),
  status: StringEnum(MEDIA_CHANNEL_STATUSES),
  activationConfiguration: ActivationConfiguration,
  activationConfigurationPatch: Type.Partial(ActivationConfiguration),
  additionalConfiguration: FreeFormObject(ADDITIONAL_CONFIGURATION_MAX_BYTES, 'Channel-specific settings.'),
};

const CreateBody = Type.Object(
  {
    name: Writable.name,
    adServerId: Writable.adServerId,
    type: Writable.type,
    activationConfiguration: Writable.activationConfiguration,
    additionalConfiguration: Type.Optional(Writable.additionalConfiguration),
  },
  { additionalProperties: false },
);
const UpdateBody = Type.Object(
  {
    status: Type.Optional(Writable.status),
    activationConfiguration: Type.Optional(Writable.activationConfigurationPatch),
    additionalConfiguration: Type.Optional(Writable.additionalConfiguration),
  },
  { additionalProperties: false },
);

/** Free-form JSON crosses gRPC as text: the service stores it as given and lists hand it back as is. */
const configurationJson = (value: object | undefined) => (value === undefined ? undefined : JSON.stringify(value));

// ---- Response: one view and one mapper; lists carry the configuration as a JSON string, single reads as an object. ----
const ChannelView = {
  idx: Type.Integer(),
  name: Type.String(),
  adServerId: Type.String(),
  adServerName: Nullable(Type.String()),
  status: Type.String(),
  type: Type.String(),
  logoUrl: Nullable(Type.String()),
  activationConfiguration: ActivationConfiguration,
};
const ListedChannel = Type.Object({ ...ChannelView, additionalConfiguration: Nullable(Type.String({ description: 'JSON-encoded object' })) });
const ChannelInfo = Type.Object({
  ...ChannelView,
  additionalConfiguration: Nullable(Type.Object({}, { additionalProperties: true })),
  updatedTime: Type.String({ format: 'date-time' }),
});

/**
 * The one mapper of a channel; `configuration` says how additionalConfiguration appears (lists carry
 * the JSON string as stored, single reads the object). One literal with every field, not spreads:
 * this runs for every item of every list.
 */
function view<C>(channel: v1.MediaChannel, configuration: C) {
  return {
    idx: channel.idx,
    name: channel.name,
    adServerId: channel.adServerId,
    adServerName: channel.adServerName ?? null,
    status: channel.status,
    type: channel.type,
    logoUrl: channel.logoUrl ?? null,
    activationConfiguration: channel.activationConfiguration ?? { tagGeneration: false, creativeGeneration: false },
    additionalConfiguration: configuration,
  };
}
const listed = (channel: v1.MediaChannel) => view(channel, channel.additionalConfigurationJson ?? null);
const info = (channel: v1.MediaChannel) => ({
  ...view(channel, channel.additionalConfigurationJson === undefined ? null : (JSON.parse(channel.additionalConfigurationJson) as object)),
  updatedTime: channel.updatedTime,
});

// ---- Examples the document shows; openapi-coverage.spec.ts checks each against its schema. ----
const EXAMPLE_ORG = 'acme-retail';
const EXAMPLE_CHANNEL = {
  idx: 42,
  name: 'Homepage banners',
  adServerId: 'gam',
  adServerName: 'Google Ad Manager',
  status: 'Active',
  type: 'Off-site',
  logoUrl: '/static/ad-servers/gam.svg',
  activationConfiguration: { tagGeneration: true, creativeGeneration: false },
};
const EXAMPLE_CONFIGURATION = { networkCode: '1234', sizes: ['300x250', '728x90'] };
const EXAMPLE_LINKS = { next: 'https://api.example.com/v2/org/acme-retail/retail-media-channels?offset=25&limit=25', previous: null };

const OrgPath = PathParams({ orgId: OrgId });
const ChannelPath = PathParams({ orgId: OrgId, mediaChannelIdx: Idx });

export const mediaChannelRoutes = [
  defineRoute({
    operationId: 'listTemplateCampaignMediaChannels',
    method: 'get',
    path: '/v2/accounts/:accountId/template-campaigns/:templateCampaignIdx/retail-media-channels',
    tag: TAG,
    summary: 'List the media channels of a template campaign',
    description:
      "Every live channel of the account's retailer organization, plus deleted channels the campaign's media plans still use, with isUtilized. Refused (403 ORG_NOT_RETAILER) when the organization is not a retailer.",
    permission: CHANNELS_PLANS_ACCESS.listTemplateCampaignMediaChannels,
    scope: { account: 'accountId' },
    params: PathParams({ accountId: AccountId, templateCampaignIdx: Idx }),
    query: PageQuery,
    success: {
      status: 200,
      description: 'A page of channels',
      schema: Type.Object({
        mediaChannels: Type.Array(Type.Intersect([ListedChannel, Type.Object({ isUtilized: Nullable(Type.Boolean()) })])),
        count: Type.Integer(),
        ...PageLinksSchema,
      }),
    },
    problems: ['ORG_NOT_RETAILER', 'RETAIL_CAMPAIGN_NOT_FOUND'],
    example: {
      params: { accountId: 1001, templateCampaignIdx: 7 },
      query: { offset: 0, limit: 25 },
      response: {
        mediaChannels: [{ ...EXAMPLE_CHANNEL, status: 'Enabled', additionalConfiguration: JSON.stringify(EXAMPLE_CONFIGURATION), isUtilized: true }],
        count: 1,
        next: null,
        previous: null,
      },
    },
    async handle({ params, query, backends, links }) {
      const result = await backends.channelsPlans.listTemplateCampaignMediaChannels({
        accountId: params.accountId,
        templateCampaignIdx: params.templateCampaignIdx,
        page: query,
      });
      return {
        body: {
          mediaChannels: result.mediaChannels.map((c) =>
            Object.assign(listed(c), { status: TEMPLATE_CAMPAIGN_CHANNEL_STATUS[c.status] ?? c.status, isUtilized: c.isUtilized ?? null }),
          ),
          count: result.count,
          ...links({ ...query, total: result.count }),
        },
      };
    },
  }),

  defineRoute({
    operationId: 'createMediaChannel',
    method: 'post',
    path: '/v2/org/:orgId/retail-media-channels',
    tag: TAG,
    summary: 'Create a media channel',
    permission: CHANNELS_PLANS_ACCESS.createMediaChannel,
    scope: { org: 'orgId' },
    params: OrgPath,
    body: CreateBody,
    success: { status: 201, description: 'Created', schema: Type.Object({ idx: Type.Integer(), message: Type.String() }) },
    problems: ['MEDIA_CHANNEL_NAME_TAKEN'],
    example: {
      params: { orgId: EXAMPLE_ORG },
      request: {
        name: 'Homepage banners',
        adServerId: 'gam',
        type: 'Off-site',
        activationConfiguration: { tagGeneration: true, creativeGeneration: false },
        additionalConfiguration: EXAMPLE_CONFIGURATION,
      },
      response: { idx: 42, message: 'Media channel created successfully.' },
    },
    async handle({ params, body, backends, req }) {
      const { idx } = await backends.channelsPlans.createMediaChannel({
        orgId: params.orgId,
        name: body.name,
        adServerId: body.adServerId,
        type: body.type,
        activationConfiguration: body.activationConfiguration,
        additionalConfigurationJson: configurationJson(body.additionalConfiguration),
      });
      return {
        headers: { Location: `${req.baseUrl}/v2/org/${encodeURIComponent(params.orgId)}/retail-media-channels/${idx}` },
        body: { idx, message: 'Media channel created successfully.' },
      };
    },
  }),

  defineRoute({
    operationId: 'updateMediaChannel',
    method: 'put',
    path: '/v2/org/:orgId/retail-media-channels/:mediaChannelIdx',
    tag: TAG,
    summary: 'Update a media channel',
    description: 'Fields left out are unchanged; additionalConfiguration, when given, replaces the stored object.',
    permission: CHANNELS_PLANS_ACCESS.updateMediaChannel,
    scope: { org: 'orgId' },
    params: ChannelPath,
    body: UpdateBody,
    success: { status: 200, description: 'Updated', schema: Message },
    problems: ['MEDIA_CHANNEL_NOT_FOUND', 'MEDIA_CHANNEL_NAME_TAKEN'],
    example: {
      params: { orgId: EXAMPLE_ORG, mediaChannelIdx: 42 },
      request: { status: 'Inactive', activationConfiguration: { creativeGeneration: true } },
      response: { message: 'Media channel updated successfully.' },
    },
    async handle({ params, body, backends }) {
      await backends.channelsPlans.updateMediaChannel({
        orgId: params.orgId,
        idx: params.mediaChannelIdx,
        status: body.status,
        activationConfiguration: body.activationConfiguration,
        additionalConfigurationJson: configurationJson(body.additionalConfiguration),
      });
      return { body: { message: 'Media channel updated successfully.' } };
    },
  }),

  defineRoute({
    operationId: 'listOrgMediaChannels',
    method: 'get',
    path: '/v2/org/:orgId/retail-media-channels',
    tag: TAG,
    summary: 'List the media channels of an organization',
    description:
      'Pages may be answered from the gateway cache; a page always reflects every change whose answer was received before the request was sent, whichever gateway replica took either.',
    permission: CHANNELS_PLANS_ACCESS.listMediaChannels,
    scope: { org: 'orgId' },
    cache: { view: CACHED_VIEWS.mediaChannels },
    params: OrgPath,
    query: PageQuery,
    success: {
      status: 200,
      description: 'A page of channels',
      schema: Type.Object({ mediaChannels: Type.Array(ListedChannel), total: Type.Integer(), ...PageLinksSchema }),
    },
    example: {
      params: { orgId: EXAMPLE_ORG },
      query: { offset: 0, limit: 25 },
      response: { mediaChannels: [{ ...EXAMPLE_CHANNEL, additionalConfiguration: JSON.stringify(EXAMPLE_CONFIGURATION) }], total: 26, ...EXAMPLE_LINKS },
    },
    async handle({ params, query, backends, links }) {
      const result = await backends.channelsPlans.listMediaChannels({ orgId: params.orgId, page: query });
      return { body: { mediaChannels: result.mediaChannels.map(listed), total: result.total, ...links({ ...query, total: result.total }) } };
    },
  }),

  defineRoute({
    operationId: 'getMediaChannel',
    method: 'get',
    path: '/v2/org/:orgId/retail-media-channels/:mediaChannelIdx',
    tag: TAG,
    summary: "Read a media channel's configuration",
    permission: CHANNELS_PLANS_ACCESS.getMediaChannel,
    scope: { org: 'orgId' },
    params: ChannelPath,
    success: { status: 200, description: 'The stored configuration', schema: Type.Object({ mediaChannelInfo: ChannelInfo }) },
    problems: ['MEDIA_CHANNEL_NOT_FOUND'],
    example: {
      params: { orgId: EXAMPLE_ORG, mediaChannelIdx: 42 },
      response: { mediaChannelInfo: { ...EXAMPLE_CHANNEL, additionalConfiguration: EXAMPLE_CONFIGURATION, updatedTime: '2026-03-02T09:30:00.000Z' } },
    },
    async handle({ params, backends }) {
      const { mediaChannel } = await backends.channelsPlans.getMediaChannel({ orgId: params.orgId, idx: params.mediaChannelIdx });
      if (!mediaChannel) throw new Error('channels-plans returned no channel');
      return { body: { mediaChannelInfo: info(mediaChannel) } };
    },
  }),

  defineRoute({
    operationId: 'deleteMediaChannel',
    method: 'delete',
    path: '/v2/org/:orgId/retail-media-channels/:mediaChannelIdx',
    tag: TAG,
    summary: 'Delete a media channel',
    permission: CHANNELS_PLANS_ACCESS.deleteMediaChannel,
    scope: { org: 'orgId' },
    params: ChannelPath,
    success: { status: 200, description: 'Deleted', schema: Message },
    problems: ['MEDIA_CHANNEL_NOT_FOUND'],
    example: { params: { orgId: EXAMPLE_ORG, mediaChannelIdx: 42 }, response: { message: 'Media channel deleted successfully.' } },
    async handle({ params, backends }) {
      await backends.channelsPlans.deleteMediaChannel({ orgId: params.orgId, idx: params.mediaChannelIdx });
      return { body: { message: 'Media channel deleted successfully.' } };
    },
  }),

  defineRoute({
    operationId: 'getAdServerConnection',
    method: 'get',
    path: '/v2/org/:orgId/retail-media-channel/:adServerId',
    tag: TAG,
    summary: 'Read the on-site ad server connection of an organization',
    description: 'apiEndpoint and apiKey for the on-site retail-media ad server; an empty object for every other ad server.',
    permission: CHANNELS_PLANS_ACCESS.getAdServerConnection,
    scope: { org: 'orgId' },
    params: PathParams({ orgId: OrgId, adServerId: Writable.adServerId }),
    success: {
      status: 200,
      description: 'Connection details, or {}',
      schema: Type.Object({ apiEndpoint: Type.Optional(Type.String()), apiKey: Type.Optional(Type.String()) }),
    },
    problems: ['AD_SERVER_NOT_FOUND', 'MEDIA_CHANNEL_NOT_FOUND'],
    example: {
      params: { orgId: EXAMPLE_ORG, adServerId: 'onsite-rm' },
      response: { apiEndpoint: 'https://api.example.com/onsite/v1', apiKey: 'osk_3kq9Zt7WmB2xYc4N8pLr5VhJ' },
    },
    async handle({ params, backends }) {
      const result = await backends.channelsPlans.getAdServerConnection(params);
      return {
        body: result.apiKey === undefined ? {} : { apiEndpoint: result.apiEndpoint, apiKey: result.apiKey },
        headers: { 'Cache-Control': 'no-store' },
      };
    },
  }),

  defineRoute({
    operationId: 'listAdServers',
    method: 'get',
    path: '/v2/ad-servers',
    tag: TAG,
    summary: 'List the ad-server catalog',
    permission: CHANNELS_PLANS_ACCESS.listAdServers,
    // The catalog is the platform's reference data, the same for every tenant.
    scope: 'none',
    extension: true,
    success: {
      status: 200,
      description: 'The catalog',
      schema: Type.Object({
        adServers: Type.Array(Type.Object({ adServerId: Type.String(), adServerName: Type.String(), kind: Type.String() })),
      }),
    },
    example: {
      response: {
        adServers: [
          { adServerId: 'onsite-rm', adServerName: 'On-site Retail Media Ad Server', kind: 'onsite-retail-media' },
          { adServerId: 'gam', adServerName: 'Google Ad Manager', kind: 'display' },
        ],
      },
    },
    async handle({ backends }) {
      const { adServers } = await backends.channelsPlans.listAdServers({});
      return { body: { adServers: adServers.map(({ adServerId, adServerName, kind }) => ({ adServerId, adServerName, kind })) } };
    },
  }),
];
