import { Type } from '@sinclair/typebox';
import { CHANNELS_PLANS_ACCESS, pickFieldInput, RETAIL_CAMPAIGN_FIELDS, toFieldJson } from '@contracts/domain';
import { channelsPlansV1 as v1 } from '@contracts/proto';
import { PageQuery } from '../http/pagination';
import { PathParams, AccountId, Idx, Message, PageLinksSchema } from './common.schemas';
import { fieldCreateProperties, fieldResponseSchema, fieldUpdateProperties } from './field-schemas';
import { defineRoute } from './route.types';

const TAG = 'channels-plans';

/** The campaign as answered: every field of RETAIL_CAMPAIGN_FIELDS but the hidden ones, by JSON name. */
const RetailCampaign = fieldResponseSchema(RETAIL_CAMPAIGN_FIELDS);

const present = (c: v1.RetailCampaign) => toFieldJson(RETAIL_CAMPAIGN_FIELDS, c);

// Examples the document shows; openapi-coverage.spec.ts checks each against its schema.
const EXAMPLE_CAMPAIGN = {
  retailCampaignId: 310,
  campaignName: 'Spring sale',
  templateIdx: null,
  isAdGroupCampaign: false,
  isSbt: false,
  status: 'ACTIVE',
  createdTime: '2026-03-01T08:00:00.000Z',
  updatedTime: '2026-03-02T09:30:00.000Z',
};

const AccountPath = PathParams({ accountId: AccountId });
const CampaignPath = PathParams({ accountId: AccountId, retailCampaignIdx: Idx });

/** Retail campaigns: an extension of the interface, needed to reach template-campaign channels, plans and exports. */
export const retailCampaignRoutes = [
  defineRoute({
    operationId: 'createRetailCampaign',
    method: 'post',
    path: '/v2/accounts/:accountId/retail-campaigns',
    tag: TAG,
    summary: 'Create a retail campaign (status DRAFT)',
    description:
      'templateIdx builds the campaign from a retail template: the templates service must know the template and the account must be able to use it ' +
      "(a System template, or one of the account's own Custom templates); otherwise 400 TEMPLATE_NOT_FOUND pointing at /templateIdx, and nothing is stored.",
    permission: CHANNELS_PLANS_ACCESS.createRetailCampaign,
    scope: { account: 'accountId' },
    extension: true,
    params: AccountPath,
    body: Type.Object(fieldCreateProperties(RETAIL_CAMPAIGN_FIELDS), { additionalProperties: false }),
    success: { status: 201, description: 'Created', schema: Type.Object({ retailCampaignId: Type.Integer() }) },
    example: {
      params: { accountId: 1001 },
      request: { campaignName: 'Spring sale', templateIdx: 12, isAdGroupCampaign: false, isSbt: false },
      response: { retailCampaignId: 310 },
    },
    async handle({ params, body, backends }) {
      const result = await backends.channelsPlans.createRetailCampaign({
        accountId: params.accountId,
        ...pickFieldInput(RETAIL_CAMPAIGN_FIELDS, 'create', body),
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
    permission: CHANNELS_PLANS_ACCESS.listRetailCampaigns,
    scope: { account: 'accountId' },
    extension: true,
    params: AccountPath,
    query: PageQuery,
    success: {
      status: 200,
      description: 'A page of campaigns',
      schema: Type.Object({ retailCampaigns: Type.Array(RetailCampaign), total: Type.Integer(), ...PageLinksSchema }),
    },
    example: {
      params: { accountId: 1001 },
      query: { offset: 0, limit: 25 },
      response: { retailCampaigns: [EXAMPLE_CAMPAIGN], total: 1, next: null, previous: null },
    },
    async handle({ params, query, backends, links }) {
      const result = await backends.channelsPlans.listRetailCampaigns({ accountId: params.accountId, page: query });
      return { body: { retailCampaigns: result.retailCampaigns.map(present), total: result.total, ...links({ ...query, total: result.total }) } };
    },
  }),

  defineRoute({
    operationId: 'getRetailCampaign',
    method: 'get',
    path: '/v2/accounts/:accountId/retail-campaigns/:retailCampaignIdx',
    tag: TAG,
    summary: 'Read a retail campaign',
    permission: CHANNELS_PLANS_ACCESS.getRetailCampaign,
    scope: { account: 'accountId' },
    extension: true,
    params: CampaignPath,
    success: { status: 200, description: 'The campaign', schema: RetailCampaign },
    problems: ['RETAIL_CAMPAIGN_NOT_FOUND'],
    example: { params: { accountId: 1001, retailCampaignIdx: 310 }, response: EXAMPLE_CAMPAIGN },
    async handle({ params, backends }) {
      const { retailCampaign } = await backends.channelsPlans.getRetailCampaign({
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
    description:
      'Status moves: DRAFT -> ACTIVE, ACTIVE <-> PAUSED, ACTIVE or PAUSED -> ARCHIVED; nothing leaves ARCHIVED. Any other move is 409 naming the current and the requested status.',
    permission: CHANNELS_PLANS_ACCESS.updateRetailCampaign,
    scope: { account: 'accountId' },
    extension: true,
    params: CampaignPath,
    body: Type.Object(fieldUpdateProperties(RETAIL_CAMPAIGN_FIELDS), { additionalProperties: false, minProperties: 1 }),
    success: { status: 200, description: 'Updated', schema: Message },
    problems: ['RETAIL_CAMPAIGN_NOT_FOUND', 'RETAIL_CAMPAIGN_STATUS_TRANSITION_NOT_ALLOWED'],
    example: {
      params: { accountId: 1001, retailCampaignIdx: 310 },
      request: { status: 'PAUSED' },
      response: { message: 'Retail campaign updated successfully.' },
    },
    async handle({ params, body, backends }) {
      await backends.channelsPlans.updateRetailCampaign({
        accountId: params.accountId,
        retailCampaignId: params.retailCampaignIdx,
        ...pickFieldInput(RETAIL_CAMPAIGN_FIELDS, 'update', body),
      });
      return { body: { message: 'Retail campaign updated successfully.' } };
    },
  }),
];
