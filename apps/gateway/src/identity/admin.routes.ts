import { timingSafeEqual } from 'node:crypto';
import { Router, Request, Response, NextFunction } from 'express';
import { Static, TObject, TSchema, Type } from '@sinclair/typebox';
import { unauthorized, validationFailed } from '@platform/errors';
import { bearerToken } from '../http/authenticate';
import { compileValidator } from '../http/validation';
import { AccountId, OrgId } from '../routes/common.schemas';
import type { ProblemCode } from '@contracts/domain';
import { HttpMethod, RouteExample } from '../routes/route.types';
import { IdentityService } from './identity.service';

export interface AdminRouteSpec<P extends TObject = TObject, B extends TSchema = TSchema> {
  operationId: string;
  method: HttpMethod;
  path: string;
  summary: string;
  description?: string;
  params?: P;
  body?: B;
  success: { status: number; description: string; schema?: TSchema };
  /** The problem codes this operation can answer beyond every admin operation's (see `RouteSpec.problems`). */
  problems?: ProblemCode[];
  example?: RouteExample<Static<P>, Static<B>>;
  handle(ctx: { params: Static<P>; body: Static<B>; identity: IdentityService }): Promise<unknown>;
}

const defineAdminRoute = <P extends TObject, B extends TSchema>(spec: AdminRouteSpec<P, B>) => spec as unknown as AdminRouteSpec;

const Dimension = Type.String({ pattern: '^[1-9][0-9]{0,4}x[1-9][0-9]{0,4}$', description: '<width>x<height>' });

export const ADMIN_ROUTES: AdminRouteSpec[] = [
  defineAdminRoute({
    operationId: 'adminCreateOrg',
    method: 'post',
    path: '/admin/v1/orgs',
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
    handle: async ({ body, identity }) => ({ orgId: await identity.createOrg(body) }),
  }),
  defineAdminRoute({
    operationId: 'adminCreateAccount',
    method: 'post',
    path: '/admin/v1/orgs/:orgId/accounts',
    summary: 'Create an account in an organization',
    params: Type.Object({ orgId: OrgId }),
    body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }),
    success: { status: 201, description: 'Created', schema: Type.Object({ accountId: Type.Integer() }) },
    problems: ['ORG_NOT_FOUND'],
    example: { params: { orgId: 'acme-retail' }, request: { name: 'Acme US' }, response: { accountId: 1001 } },
    handle: async ({ params, body, identity }) => ({ accountId: await identity.createAccount(params.orgId, body.name) }),
  }),
  defineAdminRoute({
    operationId: 'adminCreateApiKey',
    method: 'post',
    path: '/admin/v1/api-keys',
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
    handle: async ({ body, identity }) => identity.createApiKey(body),
  }),
  defineAdminRoute({
    operationId: 'adminRevokeApiKey',
    method: 'delete',
    path: '/admin/v1/api-keys/:keyId',
    summary: 'Revoke an API key; it stops working at once',
    description:
      'Answers once the revocation has reached every gateway replica, so no replica accepts the key from its principal cache afterwards. 503 REVOCATION_NOT_BROADCAST: the key is revoked, but that could not be confirmed to the other replicas.',
    params: Type.Object({ keyId: Type.String({ minLength: 1, maxLength: 32 }) }),
    success: { status: 204, description: 'Revoked' },
    example: { params: { keyId: 'Q7mK2xNc9RtB4wLz' } },
    problems: ['API_KEY_NOT_FOUND', 'REVOCATION_NOT_BROADCAST'],
    handle: async ({ params, identity }) => {
      await identity.revokeApiKey(params.keyId);
      return undefined;
    },
  }),
];

function tokenMatches(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function adminRouter(identity: IdentityService, adminToken: string): Router {
  const router = Router();
  router.use('/admin', (req, _res, next) => {
    const token = bearerToken(req);
    if (token === undefined || !tokenMatches(token, adminToken))
      return next(unauthorized('ADMIN_TOKEN_INVALID', 'The admin API needs "Authorization: Bearer <ADMIN_TOKEN>".'));
    next();
  });
  for (const spec of ADMIN_ROUTES) {
    const params = spec.params && compileValidator(spec.params, 'path');
    const body = spec.body && compileValidator(spec.body, 'body');
    router[spec.method](spec.path, (req: Request, res: Response, next: NextFunction) => {
      res.locals.route = spec.path;
      const pathValues: Record<string, unknown> = { ...req.params };
      const bodyValue: unknown = req.body ?? {};
      const errors = [...(params ? params(pathValues) : []), ...(body ? body(bodyValue) : [])];
      if (errors.length > 0) return next(validationFailed(errors));
      spec
        .handle({ params: pathValues as never, body: bodyValue as never, identity })
        .then((result) => (result === undefined ? res.status(spec.success.status).end() : res.status(spec.success.status).json(result)))
        .catch(next);
    });
  }
  return router;
}
