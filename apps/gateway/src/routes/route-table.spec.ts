import { Type } from '@sinclair/typebox';
import { ALL_PERMISSIONS, PROBLEM_DOMAINS } from '@contracts/domain';
import { FreeFormObject, IdInt64, Int32, Int64 } from './common.schemas';
import { unboundedFields } from './route-bounds';
import { shadowingRoutes } from './route-binder';
import { ROUTE_TABLE } from './route-table';
import { RouteSpec } from './route.types';

const pathParameters = (path: string) => [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);
/** A path parameter that names a tenant: the scope declaration must say which one it is. */
const TENANT_PARAMETER = /org|account/i;

function scopeProblems(route: RouteSpec): string[] {
  const names = pathParameters(route.path);
  const tenantParams = names.filter((n) => TENANT_PARAMETER.test(n));
  const scope = route.scope as RouteSpec['scope'] | undefined;
  if (scope === undefined) return ['no scope declaration'];
  // The admin API acts on any tenant it names: its token is the operator's, not a tenant's key.
  if (route.auth === 'admin') return scope === 'none' ? [] : ['an admin route has no tenant scope'];
  if (scope === 'none') return tenantParams.length > 0 ? [`scope 'none' but the path names ${tenantParams.join(', ')}`] : [];
  const declared = 'org' in scope ? scope.org : scope.account;
  const problems = names.includes(declared) ? [] : [`scope names ${declared}, which is not a path parameter`];
  const undeclared = tenantParams.filter((n) => n !== declared);
  if (undeclared.length > 0) problems.push(`path parameter(s) ${undeclared.join(', ')} look like a tenant but the scope names ${declared}`);
  return problems;
}

describe('the route table', () => {
  const routes = ROUTE_TABLE.map((route) => [`${route.method.toUpperCase()} ${route.path}`, route] as const);

  it.each(routes)('%s bounds every field it accepts', (_name, route) => {
    const problems = [
      ...(route.params ? unboundedFields(route.params).map((p) => `path ${p}`) : []),
      ...(route.query ? unboundedFields(route.query).map((p) => `query ${p}`) : []),
      ...(route.body ? unboundedFields(route.body).map((p) => `body ${p}`) : []),
      ...(route.multipartBody ? unboundedFields(route.multipartBody).map((p) => `multipart body ${p}`) : []),
    ];
    expect(problems).toEqual([]);
  });

  it.each(routes)('%s declares its tenant scope', (_name, route) => {
    expect(scopeProblems(route)).toEqual([]);
  });

  it.each(routes)('%s validates exactly the parameters of its path', (_name, route) => {
    expect(Object.keys(route.params?.properties ?? {}).sort()).toEqual(pathParameters(route.path).sort());
  });

  it.each(routes)('%s takes only integers and strings in its path and query', (_name, route) => {
    const kinds = [route.params, route.query].flatMap((schema) => Object.values(schema?.properties ?? {}).map((p) => (p as { type?: string }).type ?? 'enum'));
    expect(kinds.filter((kind) => !['integer', 'string', 'enum'].includes(kind))).toEqual([]);
  });

  it.each(routes.filter(([, route]) => route.auth !== 'admin'))('%s requires a permission of the shared catalog', (_name, route) => {
    expect(ALL_PERMISSIONS).toContain(route.permission);
  });

  it('holds the admin API too, with the admin token and no permission', () => {
    const admin = ROUTE_TABLE.filter((route) => route.path.startsWith('/admin/'));
    expect(admin.map((route) => route.operationId).sort()).toEqual(['adminCreateAccount', 'adminCreateApiKey', 'adminCreateOrg', 'adminRevokeApiKey']);
    expect(admin.map((route) => [route.auth, route.permission])).toEqual(admin.map(() => ['admin', undefined]));
  });

  it.each(routes.filter(([, route]) => route.cache))('%s may be cached: a read scoped to a tenant, answering JSON', (_name, route) => {
    // The cache drops a tenant's pages by the org or account the services' notices name, and replays JSON bytes.
    // A POST may be cached only where it is a search: the interface's one such route is the template search.
    const read = route.method === 'get' || route.operationId === 'searchRetailTemplates';
    expect([read, typeof route.scope === 'object', route.success.mediaType]).toEqual([true, true, undefined]);
  });

  it('has one operationId per operation', () => {
    const ids = ROUTE_TABLE.map((r) => r.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe(unboundedFields.name, () => {
  it('accepts a schema built from the bounded builders', () => {
    const schema = Type.Object(
      { a: Int32({ minimum: 0 }), b: Int64(), c: Type.String({ maxLength: 3 }), d: Type.Array(Type.Boolean(), { maxItems: 2 }), e: FreeFormObject(100, 'x') },
      { additionalProperties: false },
    );
    expect(unboundedFields(schema)).toEqual([]);
  });

  it('holds a value of several types to the bounds of each', () => {
    expect(unboundedFields(Type.Object({ id: IdInt64({ minimum: 1 }) }, { additionalProperties: false }))).toEqual([]);
    expect(unboundedFields(Type.Unsafe({ type: ['integer', 'string'], format: 'int64', minimum: 1, maximum: 2 }))).toEqual(['/: string without maxLength']);
  });

  it('names each field that lacks its bounds', () => {
    const schema = Type.Object({
      plain: Type.Integer({ minimum: 0 }),
      wide: Type.Integer({ format: 'int32', minimum: 0, maximum: 2 ** 40 }),
      text: Type.String(),
      list: Type.Array(Type.String({ maxLength: 1 })),
      open: Type.Object({}, { additionalProperties: true }),
      nested: Type.Object({ deep: Type.String() }, { additionalProperties: false }),
    });
    expect(unboundedFields(schema)).toEqual([
      '/plain: integer without a proto format (int32 or int64)',
      '/wide: range 0..1099511627776 exceeds int32',
      '/text: string without maxLength',
      '/list: array without maxItems',
      '/open: object open to any property without x-maxDepth and x-maxBytes',
      '/nested/deep: string without maxLength',
      '/: object open to any property without x-maxDepth and x-maxBytes',
    ]);
  });
});

describe('scope declarations', () => {
  const route = (path: string, scope: unknown) => ({ path, scope }) as unknown as RouteSpec;

  it('refuses a tenant path without a declaration, or with one that names another parameter', () => {
    expect(scopeProblems(route('/v2/org/:orgId/x', undefined))).toEqual(['no scope declaration']);
    expect(scopeProblems(route('/v2/org/:organizationId/x', 'none'))).toEqual(["scope 'none' but the path names organizationId"]);
    expect(scopeProblems(route('/v2/accounts/:accountIdx/x', { account: 'accountId' }))).toEqual([
      'scope names accountId, which is not a path parameter',
      'path parameter(s) accountIdx look like a tenant but the scope names accountId',
    ]);
    expect(scopeProblems(route('/v2/org/:orgId/x', { org: 'orgId' }))).toEqual([]);
  });

  it('lets an admin route name a tenant without a scope, and only so', () => {
    const admin = (scope: unknown) => ({ ...route('/admin/v1/orgs/:orgId/accounts', scope), auth: 'admin' }) as RouteSpec;
    expect(scopeProblems(admin('none'))).toEqual([]);
    expect(scopeProblems(admin({ org: 'orgId' }))).toEqual(['an admin route has no tenant scope']);
  });
});

describe(shadowingRoutes.name, () => {
  const route = (method: RouteSpec['method'], path: string) => ({ method, path }) as RouteSpec;

  it('finds the literal paths of other methods that a parameter of this route would swallow', () => {
    const read = route('get', '/v2/accounts/:accountId/media-plans/:mediaPlanId');
    const shadows = shadowingRoutes(read, [read, route('post', '/v2/accounts/:accountId/media-plans/auto'), route('get', '/v2/accounts/:accountId')]);
    expect(shadows.map((s) => s.allow)).toEqual(['POST']);
    expect(shadows[0].regex.test('/v2/accounts/7/media-plans/auto')).toBe(true);
    expect(shadows[0].regex.test('/v2/accounts/7/media-plans/12')).toBe(false);
  });

  it('leaves a path alone when this method serves it too, and ignores wider or unrelated paths', () => {
    const read = route('get', '/v2/accounts/:accountId/media-plans/:mediaPlanId');
    const routes = [read, route('post', '/v2/accounts/:accountId/media-plans/auto'), route('get', '/v2/accounts/:accountId/media-plans/auto')];
    expect(shadowingRoutes(read, routes)).toEqual([]);
    const literal = route('post', '/v2/accounts/:accountId/media-plans/auto');
    expect(shadowingRoutes(literal, [literal, read])).toEqual([]);
  });

  it('covers the real table: GET of a media plan does not take .../media-plans/auto', () => {
    const read = ROUTE_TABLE.find((r) => r.method === 'get' && r.path === '/v2/accounts/:accountId/media-plans/:mediaPlanId') as RouteSpec;
    expect(shadowingRoutes(read, ROUTE_TABLE).find((s) => s.regex.test('/v2/accounts/1/media-plans/auto'))?.allow).toBe('POST');
  });

  it("declares every code of the services' domains on some operation: a code none declares is dead or answered undeclared", () => {
    const declared = new Set(ROUTE_TABLE.flatMap((route) => route.problems ?? []));
    // The platform's and the gateway's own codes are answered outside the route table (admin, files) or by every route.
    const serviceDomains = Object.entries(PROBLEM_DOMAINS).filter(([domain]) => domain !== 'platform' && domain !== 'identity');
    const undeclared = serviceDomains.flatMap(([, entries]) => Object.keys(entries)).filter((code) => !declared.has(code as never));
    expect(undeclared).toEqual([]);
  });
});
