import { buildOpenApi } from '../openapi/openapi.builder';
import { knownPermissions, ROUTE_TABLE } from '../routes/route-table';
import { ObservedResponse, ResponseConformance, ResponseConformanceError } from './response-conformance';

const problem = (status: number) => ({ type: 'about:blank', title: 'x', status, detail: 'x', instance: '/x', code: 'X', requestId: 'r' });

/** A small document in the shape the gateway's builder writes: a $ref to Problem, an int64 format, a 204. */
const document = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {
    '/v2/org/{orgId}/things/{thingIdx}': {
      get: {
        operationId: 'getThing',
        responses: {
          '200': {
            description: 'ok',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['idx', 'name'],
                  properties: { idx: { type: 'integer', format: 'int64' }, name: { type: 'string' }, link: { type: ['string', 'null'], format: 'uri' } },
                  example: { idx: 1, name: 'n' },
                },
              },
            },
          },
          '404': { description: 'missing', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
        },
      },
      delete: { operationId: 'deleteThing', responses: { '204': { description: 'gone' } } },
    },
    '/v2/org/{orgId}/things/special': {
      get: {
        operationId: 'getSpecial',
        responses: { default: { description: 'any', content: { 'application/json': { schema: { type: 'object', required: ['special'] } } } } },
      },
    },
  },
  components: {
    schemas: {
      Problem: {
        type: 'object',
        required: ['type', 'title', 'status', 'detail', 'instance', 'code', 'requestId'],
        properties: { status: { type: 'integer' }, code: { type: 'string' } },
      },
    },
  },
};

const conformance = new ResponseConformance(document);
const ok = (overrides: Partial<ObservedResponse> = {}): ObservedResponse => ({
  method: 'GET',
  path: '/v2/org/acme/things/7?expand=1',
  status: 200,
  contentType: 'application/json; charset=utf-8',
  text: JSON.stringify({ idx: 7, name: 'seven', link: null }),
  ...overrides,
});
const failure = (observed: ObservedResponse): ResponseConformanceError => {
  try {
    conformance.check(observed);
  } catch (error) {
    if (error instanceof ResponseConformanceError) return error;
    throw error;
  }
  throw new Error('expected a conformance failure');
};

describe('ResponseConformance', () => {
  it('accepts a response that matches its operation, status, media type and schema', () => {
    expect(() => conformance.check(ok())).not.toThrow();
    expect(() => conformance.check(ok({ path: 'http://127.0.0.1:1234/v2/org/acme/things/7' }))).not.toThrow();
    expect(() => conformance.check(ok({ method: 'DELETE', status: 204, contentType: null, text: '' }))).not.toThrow();
  });

  it('catches a field of the wrong type, naming the operation, status and field', () => {
    const error = failure(ok({ text: JSON.stringify({ idx: '7', name: 'seven' }) }));
    expect(error.message).toMatch(/GET \/v2\/org\/\{orgId\}\/things\/\{thingIdx\} \(getThing\): status 200 body does not match/);
    expect(error.details.errors).toEqual([expect.objectContaining({ instancePath: '/idx', keyword: 'type' })]);
  });

  it('catches a missing required field', () => {
    const error = failure(ok({ text: JSON.stringify({ idx: 7 }) }));
    expect(error.details.errors).toEqual([expect.objectContaining({ keyword: 'required', params: { missingProperty: 'name' } })]);
  });

  it('checks formats', () => {
    expect(failure(ok({ text: JSON.stringify({ idx: 7, name: 's', link: 'not a uri' }) })).details.errors).toEqual([
      expect.objectContaining({ instancePath: '/link', keyword: 'format' }),
    ]);
  });

  it('catches an undocumented status', () => {
    expect(failure(ok({ status: 500 })).message).toMatch(/getThing\): status 500 is not documented \(documented: 200, 404\)/);
  });

  it('catches a content type other than the documented one', () => {
    expect(failure(ok({ contentType: 'text/html; charset=utf-8', text: '<p>hi</p>' })).message).toMatch(
      /answered content-type text\/html.*documented: application\/json/,
    );
    expect(failure(ok({ status: 404, contentType: 'application/json', text: JSON.stringify(problem(404)) })).message).toMatch(
      /documented: application\/problem\+json/,
    );
  });

  it('resolves $ref to components and catches a body where none is documented', () => {
    expect(() => conformance.check(ok({ status: 404, contentType: 'application/problem+json', text: JSON.stringify(problem(404)) }))).not.toThrow();
    expect(failure(ok({ status: 404, contentType: 'application/problem+json', text: JSON.stringify({ status: 404 }) })).details.errors?.length).toBeGreaterThan(
      0,
    );
    expect(failure(ok({ method: 'DELETE', status: 204, text: '{}' })).message).toMatch(/documents no body/);
  });

  it('prefers a literal segment over a template and falls back to the default response', () => {
    expect(() => conformance.check(ok({ path: '/v2/org/acme/things/special', status: 418, text: '{"special":true}' }))).not.toThrow();
    expect(failure(ok({ path: '/v2/org/acme/things/special', status: 418 })).message).toMatch(/getSpecial/);
  });

  it('holds unknown routes to a 404 or 405 problem', () => {
    const unknown = { path: '/v2/nowhere', contentType: 'application/problem+json' };
    expect(() => conformance.check(ok({ ...unknown, status: 404, text: JSON.stringify(problem(404)) }))).not.toThrow();
    expect(() =>
      conformance.check(ok({ ...unknown, method: 'PATCH', path: '/v2/org/acme/things/7', status: 405, text: JSON.stringify(problem(405)) })),
    ).not.toThrow();
    expect(failure(ok({ ...unknown, status: 200, text: '{}' })).message).toMatch(/no documented operation.*expected a 404 or 405/);
    expect(failure(ok({ ...unknown, status: 404, text: '{}' })).details.errors?.length).toBeGreaterThan(0);
  });

  it('leaves the paths outside the API alone', () => {
    for (const path of ['/healthz', '/readyz', '/metrics', '/openapi.json', '/docs', '/docs/swagger-ui.css', '/static/ad-servers/gam.svg']) {
      expect(ResponseConformance.isOutsideTheApi(path)).toBe(true);
    }
    expect(ResponseConformance.isOutsideTheApi('/v2/ad-servers')).toBe(false);
    expect(ResponseConformance.isOutsideTheApi('/docsx')).toBe(false);
  });

  it("checks responses against the gateway's own generated document", () => {
    const gatewayDocument = buildOpenApi(ROUTE_TABLE, [...knownPermissions()].sort());
    const checker = new ResponseConformance(gatewayDocument);
    const result = { method: 'GET', path: '/v2/ad-servers', status: 200, contentType: 'application/json', text: JSON.stringify({ adServers: [] }) };
    expect(() => checker.check(result)).not.toThrow();
    expect(() => checker.check({ ...result, text: JSON.stringify({ adServers: [{ adServerId: 1 }] }) })).toThrow(ResponseConformanceError);
  });

  it('fails a problem whose code the operation does not declare, so an undeclared code is caught on every end-to-end answer', () => {
    const checker = new ResponseConformance(buildOpenApi(ROUTE_TABLE, [...knownPermissions()].sort()));
    const answer = (code: string) => ({
      method: 'GET',
      path: '/v2/accounts/1001/media-plans/8801',
      status: 404,
      contentType: 'application/problem+json',
      text: JSON.stringify({ type: 'urn:x', title: 't', status: 404, detail: 'd', instance: '/x', code, requestId: 'r' }),
    });
    expect(() => checker.check(answer('MEDIA_PLAN_NOT_FOUND'))).not.toThrow();
    expect(() => checker.check(answer('ACCOUNT_NOT_FOUND'))).not.toThrow();
    // A real code of the catalog, but not one getMediaPlan can answer.
    const error = (() => {
      try {
        checker.check(answer('TEMPLATE_NOT_FOUND'));
      } catch (caught) {
        return caught as ResponseConformanceError;
      }
      throw new Error('expected a conformance failure');
    })();
    expect(error.message).toMatch(/getMediaPlan\): status 404 body does not match the document: \/code must be equal to one of the allowed values/);
  });
});
