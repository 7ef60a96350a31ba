import { Type } from '@sinclair/typebox';
import { channelsPlansV1 as v1 } from '@contracts/proto';
import { PageQuery } from '../http/pagination';
import { AccountId, Idx, Message, Nullable, OrgId, PageLinksSchema, StringEnum } from './common.schemas';
import { defineRoute } from './route.types';

const TAG = 'channels-plans';
const CHANNEL_TYPES = ['On-site', 'Off-site', 'Social', 'In-store/DOOH', 'Hybrid'] as const;

const ActivationConfiguration = Type.Object(
  { tagGeneration: Type.Boolean(), creativeGeneration: Type.Boolean() },
  { additionalProperties: false },
);
const AdditionalConfiguration = Type.Object({}, { additionalProperties: true, description: 'Channel-specific settings (arbitrary JSON object, at most 16 KiB).' });

const OrgPath = Type.Object({ orgId: OrgId });
const ChannelPath = Type.Object({ orgId: OrgId, mediaChannelIdx: Idx });

const ListedChannel = Type.Object({
  idx: Type.Integer(),
  name: Type.String(),
  adServerId: Type.String(),
  adServerName: Nullable(Type.String()),
  status: Type.String(),
  type: Type.String(),
  logoUrl: Nullable(Type.String()),
  activationConfiguration: ActivationConfiguration,
  additionalConfiguration: Nullable(Type.String({ description: 'JSON-encoded object' })),
});

const ChannelInfo = Type.Object({
  idx: Type.Integer(),
  name: Type.String(),
  adServerId: Type.String(),
  adServerName: Nullable(Type.String()),
  type: Type.String(),
  status: Type.String(),
  logoUrl: Nullable(Type.String()),
  activationConfiguration: ActivationConfiguration,
  additionalConfiguration: Nullable(AdditionalConfiguration),
  updatedTime: Type.String({ format: 'date-time' }),
});

/** Template-campaign lists show the lifecycle words of interface.md's state table. */
const TEMPLATE_STATUS: Record<string, string> = { Active: 'Enabled', Inactive: 'Disabled', Deleted: 'Deleted' };

function listed(channel: v1.MediaChannel) {
  return {
    idx: channel.idx,
    name: channel.name,
    adServerId: channel.adServerId,
    adServerName: channel.adServerName ?? null,
    status: channel.status,
    type: channel.type,
    logoUrl: channel.logoUrl ?? null,
    activationConfiguration: channel.activationConfiguration ?? { tagGeneration: false, creativeGeneration: false },
    additionalConfiguration: channel.additionalConfigurationJson ?? null,
  };
}

export const mediaChannelRoutes = [
  defineRoute({
    operationId: 'listTemplateCampaignMediaChannels',
    method: 'get',
    path: '/v2/accounts/:accountId/template-campaigns/:templateCampaignIdx/retail-media-channels',
    tag: TAG,
    summary: 'List the media channels of a template campaign',
    description: 'Every live channel of the account\'s retailer organization, plus deleted channels the campaign\'s media plans still use, with isUtilized. Refused (403 ORG_NOT_RETAILER) when the organization is not a retailer.',
    permission: 'MediaChannel_View',
    params: Type.Object({ accountId: AccountId, templateCampaignIdx: Idx }),
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
    async handle({ params, query, backends, call, links }) {
      const result = await call(backends.channelsPlans, backends.channelsPlans.listTemplateCampaignMediaChannels, {
        accountId: params.accountId,
        templateCampaignIdx: params.templateCampaignIdx,
        page: query,
      });
      return {
        body: {
          mediaChannels: result.mediaChannels.map((c) => ({
            ...listed(c),
            status: TEMPLATE_STATUS[c.status] ?? c.status,
            isUtilized: c.isUtilized ?? null,
          })),
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
    permission: 'MediaChannel_All',
    params: OrgPath,
    body: Type.Object(
      {
        name: Type.String({ minLength: 1, maxLength: 200 }),
        adServerId: Type.String({ minLength: 1, maxLength: 64, description: 'An id from GET /v2/ad-servers' }),
        type: StringEnum(CHANNEL_TYPES, { description: 'Channel type' }),
        activationConfiguration: ActivationConfiguration,
        additionalConfiguration: Type.Optional(AdditionalConfiguration),
      },
      { additionalProperties: false },
    ),
    success: { status: 201, description: 'Created', schema: Type.Object({ idx: Type.Integer(), message: Type.String() }) },
    problems: [409],
    async handle({ params, body, backends, call, req }) {
      const { idx } = await call(backends.channelsPlans, backends.channelsPlans.createMediaChannel, {
        orgId: params.orgId,
        name: body.name,
        adServerId: body.adServerId,
        type: body.type,
        activationConfiguration: body.activationConfiguration,
        additionalConfigurationJson: body.additionalConfiguration === undefined ? undefined : JSON.stringify(body.additionalConfiguration),
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
    permission: 'MediaChannel_All',
    params: ChannelPath,
    body: Type.Object(
      {
        status: Type.Optional(StringEnum(['Active', 'Inactive'] as const)),
        activationConfiguration: Type.Optional(
          Type.Object({ tagGeneration: Type.Optional(Type.Boolean()), creativeGeneration: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
        ),
        additionalConfiguration: Type.Optional(AdditionalConfiguration),
      },
      { additionalProperties: false },
    ),
    success: { status: 200, description: 'Updated', schema: Message },
    async handle({ params, body, backends, call }) {
      await call(backends.channelsPlans, backends.channelsPlans.updateMediaChannel, {
        orgId: params.orgId,
        idx: params.mediaChannelIdx,
        status: body.status,
        activationConfiguration: body.activationConfiguration,
        additionalConfigurationJson: body.additionalConfiguration === undefined ? undefined : JSON.stringify(body.additionalConfiguration),
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
    permission: 'MediaChannel_All',
    params: OrgPath,
    query: PageQuery,
    success: {
      status: 200,
      description: 'A page of channels',
      schema: Type.Object({ mediaChannels: Type.Array(ListedChannel), total: Type.Integer(), ...PageLinksSchema }),
    },
    async handle({ params, query, backends, call, links }) {
      const result = await call(backends.channelsPlans, backends.channelsPlans.listMediaChannels, { orgId: params.orgId, page: query });
      return { body: { mediaChannels: result.mediaChannels.map(listed), total: result.total, ...links({ ...query, total: result.total }) } };
    },
  }),

  defineRoute({
    operationId: 'getMediaChannel',
    method: 'get',
    path: '/v2/org/:orgId/retail-media-channels/:mediaChannelIdx',
    tag: TAG,
    summary: 'Read a media channel\'s configuration',
    permission: 'MediaChannel_All',
    params: ChannelPath,
    success: { status: 200, description: 'The stored configuration', schema: Type.Object({ mediaChannelInfo: ChannelInfo }) },
    async handle({ params, backends, call }) {
      const { mediaChannel: c } = await call(backends.channelsPlans, backends.channelsPlans.getMediaChannel, { orgId: params.orgId, idx: params.mediaChannelIdx });
      if (!c) throw new Error('channels-plans returned no channel');
      return {
        body: {
          mediaChannelInfo: {
            idx: c.idx,
            name: c.name,
            adServerId: c.adServerId,
            adServerName: c.adServerName ?? null,
            type: c.type,
            status: c.status,
            logoUrl: c.logoUrl ?? null,
            activationConfiguration: c.activationConfiguration,
            additionalConfiguration: c.additionalConfigurationJson === undefined ? null : JSON.parse(c.additionalConfigurationJson),
            updatedTime: c.updatedTime,
          },
        },
      };
    },
  }),

  defineRoute({
    operationId: 'deleteMediaChannel',
    method: 'delete',
    path: '/v2/org/:orgId/retail-media-channels/:mediaChannelIdx',
    tag: TAG,
    summary: 'Delete a media channel',
    permission: 'MediaChannel_All',
    params: ChannelPath,
    success: { status: 200, description: 'Deleted', schema: Message },
    async handle({ params, backends, call }) {
      await call(backends.channelsPlans, backends.channelsPlans.deleteMediaChannel, { orgId: params.orgId, idx: params.mediaChannelIdx });
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
    permission: 'MediaChannel_All',
    params: Type.Object({ orgId: OrgId, adServerId: Type.String({ minLength: 1, maxLength: 64 }) }),
    success: {
      status: 200,
      description: 'Connection details, or {}',
      schema: Type.Object({ apiEndpoint: Type.Optional(Type.String()), apiKey: Type.Optional(Type.String()) }),
    },
    async handle({ params, backends, call }) {
      const result = await call(backends.channelsPlans, backends.channelsPlans.getAdServerConnection, params);
      return { body: result.apiKey === undefined ? {} : { apiEndpoint: result.apiEndpoint, apiKey: result.apiKey }, headers: { 'Cache-Control': 'no-store' } };
    },
  }),

  defineRoute({
    operationId: 'listAdServers',
    method: 'get',
    path: '/v2/ad-servers',
    tag: TAG,
    summary: 'List the ad-server catalog',
    permission: 'AdServers_View',
    extension: true,
    success: {
      status: 200,
      description: 'The catalog',
      schema: Type.Object({
        adServers: Type.Array(Type.Object({ adServerId: Type.String(), adServerName: Type.String(), kind: Type.String() })),
      }),
    },
    async handle({ backends, call }) {
      const { adServers } = await call(backends.channelsPlans, backends.channelsPlans.listAdServers, {});
      return { body: { adServers: adServers.map(({ adServerId, adServerName, kind }) => ({ adServerId, adServerName, kind })) } };
    },
  }),
];
