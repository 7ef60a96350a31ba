import { Type } from '@sinclair/typebox';
import { AccountId, OrgId, PathParams } from '../routes/common.schemas';
import { defineRoute, type RouteSpec } from '../routes/route.types';

/** What every admin route shares: the admin token instead of an API key, no tenant scope, its own tag. */
const ADMIN = { auth: 'admin', scope: 'none', tag: 'admin', extension: true } as const;

const Dimension = Type.String({ pattern: '^[1-9][0-9]{0,4}x[1-9][0-9]{0,4}$', maxLength: 11, description: '<width>x<height>' });

/**
 * The identity administration (orgs, accounts, API keys), called with the operator's ADMIN_TOKEN:
 * routes of the one table, bound, validated and documented like every other, with `auth: 'admin'`.
 */
export const adminRoutes: RouteSpec[] = [
  defineRoute({
    operationId: 'adminCreateOrg',
    method: 'post',
    path: '/admin/v1/orgs',
    ...ADMIN,
    summary: 'Create an organization',
    body: Type.Object(
      {
        orgId: Type.Optional(OrgId),
        name: Type.String({ minLength: 1, maxLength: 200 }),
        isRetailer: Type.Boolean(),
        dimensionWhitelist: Type.Optional(Type.Array(Dimension, { maxItems: 500 })),
      },
      { additionalProperties: false },
    ),
    success: { status: 201, description: 'Created', schema: Type.Object({ orgId: Type.String() }) },
    problems: ['ORG_EXISTS'],
    example: {
      request: { orgId: 'acme-retail', name: 'Acme Retail', isRetailer: true, dimensionWhitelist: ['300x250', '728x90'] },
      response: { orgId: 'acme-retail' },
    },
    handle: async ({ body, local }) => ({ body: { orgId: await local.identity.createOrg(body) } }),
  }),
  defineRoute({
    operationId: 'adminCreateAccount',
    method: 'post',
    path: '/admin/v1/orgs/:orgId/accounts',
    ...ADMIN,
    summary: 'Create an account in an organization',
    params: PathParams({ orgId: OrgId }),
    body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }),
    success: { status: 201, description: 'Created', schema: Type.Object({ accountId: Type.Integer() }) },
    problems: ['ORG_NOT_FOUND'],
    example: { params: { orgId: 'acme-retail' }, request: { name: 'Acme US' }, response: { accountId: 1001 } },
    handle: async ({ params, body, local }) => ({ body: { accountId: await local.identity.createAccount(params.orgId, body.name) } }),
  }),
  defineRoute({
    operationId: 'adminCreateApiKey',
    method: 'post',
    path: '/admin/v1/api-keys',
    ...ADMIN,
    summary: 'Issue an API key (shown once)',
    description:
      'permissions: "*" or permission names (see x-permissions at the document root). Omitted accountIds means every account of the org, including accounts created later.',
    body: Type.Object(
      {
        orgId: OrgId,
        accountIds: Type.Optional(Type.Array(AccountId, { minItems: 1, maxItems: 1000 })),
        permissions: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 100 }),
      },
      { additionalProperties: false },
    ),
    success: { status: 201, description: 'Created; apiKey is never shown again', schema: Type.Object({ keyId: Type.String(), apiKey: Type.String() }) },
    example: {
      request: { orgId: 'acme-retail', accountIds: [1001], permissions: ['MediaChannel_All', 'RetailCampaigns_View'] },
      // A made-up key of the real shape (rmk_<keyId>_<secret>); it authorizes nothing.
      response: { keyId: 'Q7mK2xNc9RtB4wLz', apiKey: 'rmk_Q7mK2xNc9RtB4wLz_exampleSecretNotARealKey0000000000000000000' },
    },
    handle: async ({ body, local }) => ({ body: await local.identity.createApiKey(body) }),
  }),
  defineRoute({
    operationId: 'adminRevokeApiKey',
    method: 'delete',
    path: '/admin/v1/api-keys/:keyId',
    ...ADMIN,
    summary: 'Revoke an API key; it stops working at once',
    description:
      'Answers once the revocation has reached every gateway replica, so no replica accepts the key from its principal cache afterwards. 503 REVOCATION_NOT_BROADCAST: the key is revoked, but that could not be confirmed to the other replicas.',
    params: PathParams({ keyId: Type.String({ minLength: 1, maxLength: 32 }) }),
    success: { status: 204, description: 'Revoked' },
    example: { params: { keyId: 'Q7mK2xNc9RtB4wLz' } },
    problems: ['API_KEY_NOT_FOUND', 'REVOCATION_NOT_BROADCAST'],
    handle: async ({ params, local }) => {
      await local.identity.revokeApiKey(params.keyId);
      return {};
    },
  }),
];
