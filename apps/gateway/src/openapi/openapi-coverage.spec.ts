import { knownPermissions, ROUTE_TABLE } from '../routes/route-table';
import { RouteSpec } from '../routes/route.types';
import { buildOpenApi } from './openapi.builder';
import { coverageProblems, documentOperations } from './openapi-coverage';

type JsonObject = Record<string, unknown>;

/** The document as clients read it: built from the tables, then through JSON like /openapi.json. */
const documentOf = (routes: RouteSpec[] = ROUTE_TABLE) => JSON.parse(JSON.stringify(buildOpenApi(routes, [...knownPermissions(routes)].sort()))) as JsonObject;

const operationOf = (document: JsonObject, path: string, method: string) => (document.paths as Record<string, Record<string, JsonObject>>)[path][method];

const routeNamed = (operationId: string) => {
  const route = ROUTE_TABLE.find((r) => r.operationId === operationId);
  if (!route) throw new Error(`no route ${operationId}`);
  return route;
};

/** The table with one route replaced by a variant, as an edit to a *.routes.ts file would leave it. */
const withRoute = (operationId: string, change: (route: RouteSpec) => RouteSpec) =>
  ROUTE_TABLE.map((route) => (route.operationId === operationId ? change(route) : route));

describe('the OpenAPI document covers the gateway', () => {
  const document = documentOf();

  it('documents every routed operation and nothing else, each complete and with valid examples', () => {
    expect(coverageProblems(document, ROUTE_TABLE)).toEqual([]);
  });

  it('counts the same operations the gateway routes', () => {
    const routed = ROUTE_TABLE.map((r) => `${r.method.toUpperCase()} ${r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`).sort();
    expect([...documentOperations(document).keys()].sort()).toEqual(routed);
  });

  it.each(ROUTE_TABLE.map((r) => [r.operationId, r] as const))('%s carries an example for each body it exchanges', (_id, route) => {
    expect(route.example).toBeDefined();
    if (route.body) expect(route.example?.request).toBeDefined();
    if (route.success.schema) expect(route.example?.response).toBeDefined();
  });

  it('emits examples in the OpenAPI 3.1 `examples` form', () => {
    const create = operationOf(document, '/v2/org/{orgId}/retail-media-channels', 'post');
    const request = ((create.requestBody as JsonObject).content as Record<string, JsonObject>)['application/json'];
    expect(request.examples).toEqual({ example: { summary: 'A valid request', value: routeNamed('createMediaChannel').example?.request } });
    expect((create.parameters as JsonObject[])[0]).toEqual(
      expect.objectContaining({ name: 'orgId', examples: { example: expect.objectContaining({ value: 'acme-retail' }) } }),
    );
  });
});

describe('the coverage check fails on a gap', () => {
  it('a route the gateway serves that the document lacks', () => {
    const fabricated: RouteSpec = { ...routeNamed('listAdServers'), operationId: 'listFabricated', path: '/v2/fabricated/:widgetIdx' };
    expect(coverageProblems(documentOf(), [...ROUTE_TABLE, fabricated])).toContain(
      'GET /v2/fabricated/{widgetIdx}: routed by the gateway but missing from the document',
    );
  });

  it('an operation the document names that no route answers', () => {
    const document = documentOf();
    (document.paths as JsonObject)['/v2/ghosts'] = { get: operationOf(document, '/v2/ad-servers', 'get') };
    expect(coverageProblems(document, ROUTE_TABLE)).toContain('GET /v2/ghosts: in the document but no route answers it');
  });

  it('a request example that breaks its schema', () => {
    const routes = withRoute('createRetailCampaign', (route) => ({ ...route, example: { ...route.example, request: { campaignName: '', colour: 'red' } } }));
    const problems = coverageProblems(documentOf(routes), routes);
    expect(problems).toEqual(
      expect.arrayContaining([expect.stringMatching(/^POST \/v2\/accounts\/\{accountId\}\/retail-campaigns: request example: TOO_SHORT/)]),
    );
    expect(problems).toEqual(expect.arrayContaining([expect.stringMatching(/request example: UNKNOWN_FIELD: colour/)]));
  });

  it('a success example that no longer matches the response schema', () => {
    const stale = { ...(routeNamed('getRetailCampaign').example?.response as JsonObject), createdTime: 'yesterday' };
    delete (stale as JsonObject).status;
    const routes = withRoute('getRetailCampaign', (route) => ({ ...route, example: { ...route.example, response: stale } }));
    const problems = coverageProblems(documentOf(routes), routes).join('\n');
    expect(problems).toMatch(/success example: REQUIRED: status is required/);
    expect(problems).toMatch(/success example: INVALID_FORMAT: createdTime/);
  });

  it('a path parameter example out of its bounds, and a path parameter without one', () => {
    const routes = withRoute('getMediaChannel', (route) => ({ ...route, example: { ...route.example, params: { mediaChannelIdx: 0 } } }));
    const problems = coverageProblems(documentOf(routes), routes);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/GET \/v2\/org\/\{orgId\}\/retail-media-channels\/\{mediaChannelIdx\}: example of path parameter mediaChannelIdx: OUT_OF_RANGE/),
        'GET /v2/org/{orgId}/retail-media-channels/{mediaChannelIdx}: path parameter orgId has no example',
      ]),
    );
  });

  it('an operation without any example', () => {
    const routes = withRoute('listAdServers', (route) => ({ ...route, example: undefined }));
    expect(coverageProblems(documentOf(routes), routes)).toEqual(['GET /v2/ad-servers: success 200 has no example', 'GET /v2/ad-servers: has no example']);
  });

  it('a missing permission, request schema, parameter schema or problem answer', () => {
    const document = documentOf();
    const create = operationOf(document, '/v2/org/{orgId}/retail-media-channels', 'post');
    delete create['x-required-permission'];
    delete create.requestBody;
    delete ((create.responses as JsonObject)['429'] as JsonObject).content;
    delete (create.responses as JsonObject)['413'];
    delete (operationOf(document, '/v2/org/{orgId}/retail-media-channels', 'get').parameters as JsonObject[])[1].schema;
    expect(coverageProblems(document, ROUTE_TABLE)).toEqual([
      'POST /v2/org/{orgId}/retail-media-channels: no x-required-permission',
      'POST /v2/org/{orgId}/retail-media-channels: takes a body but documents no application/json request schema',
      'POST /v2/org/{orgId}/retail-media-channels: error status 413 is not documented as application/problem+json',
      'POST /v2/org/{orgId}/retail-media-channels: error status 429 is not documented as application/problem+json',
      'GET /v2/org/{orgId}/retail-media-channels: query parameter offset has no schema',
    ]);
  });

  it('a write without its Idempotency-Key parameter, and a 429 or 503 without its headers', () => {
    const document = documentOf();
    const create = operationOf(document, '/v2/org/{orgId}/retail-media-channels', 'post');
    create.parameters = (create.parameters as JsonObject[]).filter((parameter) => parameter.in !== 'header');
    const responses = operationOf(document, '/v2/ad-servers', 'get').responses as Record<string, JsonObject>;
    delete responses['429'].headers;
    delete responses['503'].headers;
    expect(coverageProblems(document, ROUTE_TABLE)).toEqual([
      'POST /v2/org/{orgId}/retail-media-channels: a write, but the Idempotency-Key header is not documented',
      'GET /v2/ad-servers: error status 429 does not document Retry-After',
      'GET /v2/ad-servers: error status 429 does not document the RateLimit headers',
      'GET /v2/ad-servers: error status 503 does not document Retry-After',
    ]);
  });

  it('gives every write the Idempotency-Key parameter, and none to a cached read sent as POST', () => {
    const document = documentOf();
    const headerNames = (path: string, method: string) =>
      ((operationOf(document, path, method).parameters ?? []) as JsonObject[]).filter((p) => p.in === 'header').map((p) => p.name);
    expect(headerNames('/v2/org/{orgId}/retail-media-channels', 'post')).toEqual(['Idempotency-Key']);
    expect(headerNames('/v2/org/{orgId}/retail-media-channels', 'get')).toEqual([]);
    expect(headerNames('/v2/accounts/{accountId}/retail-campaigns/retail-templates', 'post')).toEqual([]);
  });

  it('an admin operation not secured by the admin token, and a permission outside the catalog', () => {
    const document = documentOf();
    operationOf(document, '/admin/v1/api-keys', 'post').security = [{ bearerApiKey: [] }];
    operationOf(document, '/v2/ad-servers', 'get')['x-required-permission'] = 'Everything_All';
    expect(coverageProblems(document, ROUTE_TABLE)).toEqual([
      'GET /v2/ad-servers: x-required-permission Everything_All is not in x-permissions',
      'POST /admin/v1/api-keys: admin operation secured by [{"bearerApiKey":[]}], not the admin token',
    ]);
  });

  it('a route-declared problem status the document drops', () => {
    const routes = withRoute('updateRetailCampaign', (route) => ({ ...route, problems: [...(route.problems ?? []), 'REMOTE_SOURCE_REFUSED'] }));
    const document = documentOf(routes);
    expect(coverageProblems(document, routes)).toEqual([]);
    delete (operationOf(document, '/v2/accounts/{accountId}/retail-campaigns/{retailCampaignIdx}', 'patch').responses as JsonObject)['424'];
    expect(coverageProblems(document, routes)).toEqual([
      'PATCH /v2/accounts/{accountId}/retail-campaigns/{retailCampaignIdx}: error status 424 is not documented as application/problem+json',
    ]);
  });

  it('a route-declared problem code the document does not list', () => {
    const routes = withRoute('updateRetailCampaign', (route) => ({ ...route, problems: [...(route.problems ?? []), 'RETAIL_CAMPAIGN_NOT_ACTIVE'] }));
    expect(coverageProblems(documentOf(), routes)).toEqual([
      'PATCH /v2/accounts/{accountId}/retail-campaigns/{retailCampaignIdx}: error status 409 documents the codes ' +
        '["IDEMPOTENCY_REQUEST_IN_PROGRESS","RETAIL_CAMPAIGN_STATUS_TRANSITION_NOT_ALLOWED"], ' +
        'the route answers ["IDEMPOTENCY_REQUEST_IN_PROGRESS","RETAIL_CAMPAIGN_STATUS_TRANSITION_NOT_ALLOWED","RETAIL_CAMPAIGN_NOT_ACTIVE"]',
    ]);
  });
});
