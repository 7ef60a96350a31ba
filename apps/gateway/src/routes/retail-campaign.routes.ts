import { Type } from '@sinclair/typebox';
import { channelsPlansV1 as v1 } from '@contracts/proto';
import { PageQuery } from '../http/pagination';
import { AccountId, Idx, Message, Nullable, PageLinksSchema, StringEnum } from './common.schemas';
import { defineRoute } from './route.types';

const TAG = 'channels-plans';
const STATUSES = ['DRAFT', 'ACTIVE', 'PAUSED', 'ARCHIVED'] as const;

const RetailCampaign = Type.Object({
  retailCampaignId: Type.Integer(),
  campaignName: Type.String(),
  templateIdx: Nullable(Type.Integer()),
  isAdGroupCampaign: Type.Boolean(),
  isSbt: Type.Boolean(),
  status: Type.String(),
  createdTime: Type.String({ format: 'date-time' }),
  updatedTime: Type.String({ format: 'date-time' }),
});

const present = (c: v1.RetailCampaign) => ({
  retailCampaignId: c.retailCampaignId,
  campaignName: c.campaignName,
  templateIdx: c.templateIdx ?? null,
  isAdGroupCampaign: c.isAdGroupCampaign,
  isSbt: c.isSbt,
  status: c.status,
  createdTime: c.createdTime,
  updatedTime: c.updatedTime,
});

const AccountPath = Type.Object({ accountId: AccountId });
const CampaignPath = Type.Object({ accountId: AccountId, retailCampaignIdx: Idx });

/** Retail campaigns: a DESIGN.md extension, needed to reach template-campaign channels, plans and exports. */
export const retailCampaignRoutes = [
  defineRoute({
    operationId: 'createRetailCampaign',
    method: 'post',
    path: '/v2/accounts/:accountId/retail-campaigns',
    tag: TAG,
    summary: 'Create a retail campaign (status DRAFT)',
    permission: 'RetailCampaigns_Edit',
    extension: true,
    params: AccountPath,
    body: Type.Object(
      {
        campaignName: Type.String({ minLength: 1, maxLength: 200 }),
        templateIdx: Type.Optional(Type.Integer({ minimum: 1 })),
        isAdGroupCampaign: Type.Optional(Type.Boolean({ default: false })),
        isSbt: Type.Optional(Type.Boolean({ default: false })),
      },
      { additionalProperties: false },
    ),
    success: { status: 201, description: 'Created', schema: Type.Object({ retailCampaignId: Type.Integer() }) },
    async handle({ params, body, backends, call }) {
      const result = await call(backends.channelsPlans, backends.channelsPlans.createRetailCampaign, {
        accountId: params.accountId,
        campaignName: body.campaignName,
        templateIdx: body.templateIdx,
        isAdGroupCampaign: body.isAdGroupCampaign ?? false,
        isSbt: body.isSbt ?? false,
      });
      return { body: { retailCampaignId: result.retailCampaignId } };
    },
  }),

  defineRoute({
    operationId: 'listRetailCampaigns',
    method: 'get',
    path: '/v2/accounts/:accountId/retail-campaigns',
    tag: TAG,
    summary: 'List retail campaigns',
    permission: 'RetailCampaigns_View',
    extension: true,
    params: AccountPath,
    query: PageQuery,
    success: {
      status: 200,
      description: 'A page of campaigns',
      schema: Type.Object({ retailCampaigns: Type.Array(RetailCampaign), total: Type.Integer(), ...PageLinksSchema }),
    },
    async handle({ params, query, backends, call, links }) {
      const result = await call(backends.channelsPlans, backends.channelsPlans.listRetailCampaigns, { accountId: params.accountId, page: query });
      return { body: { retailCampaigns: result.retailCampaigns.map(present), total: result.total, ...links({ ...query, total: result.total }) } };
    },
  }),

  defineRoute({
    operationId: 'getRetailCampaign',
    method: 'get',
    path: '/v2/accounts/:accountId/retail-campaigns/:retailCampaignIdx',
    tag: TAG,
    summary: 'Read a retail campaign',
    permission: 'RetailCampaigns_View',
    extension: true,
    params: CampaignPath,
    success: { status: 200, description: 'The campaign', schema: RetailCampaign },
    async handle({ params, backends, call }) {
      const { retailCampaign } = await call(backends.channelsPlans, backends.channelsPlans.getRetailCampaign, {
        accountId: params.accountId,
        retailCampaignId: params.retailCampaignIdx,
      });
      if (!retailCampaign) throw new Error('channels-plans returned no campaign');
      return { body: present(retailCampaign) };
    },
  }),

  defineRoute({
    operationId: 'updateRetailCampaign',
    method: 'patch',
    path: '/v2/accounts/:accountId/retail-campaigns/:retailCampaignIdx',
    tag: TAG,
    summary: 'Rename a retail campaign or change its status',
    permission: 'RetailCampaigns_Edit',
    extension: true,
    params: CampaignPath,
    body: Type.Object(
      {
        campaignName: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        status: Type.Optional(StringEnum(STATUSES)),
      },
      { additionalProperties: false, minProperties: 1 },
    ),
    success: { status: 200, description: 'Updated', schema: Message },
    async handle({ params, body, backends, call }) {
      await call(backends.channelsPlans, backends.channelsPlans.updateRetailCampaign, {
        accountId: params.accountId,
        retailCampaignId: params.retailCampaignIdx,
        campaignName: body.campaignName,
        status: body.status,
      });
      return { body: { message: 'Retail campaign updated successfully.' } };
    },
  }),
];
