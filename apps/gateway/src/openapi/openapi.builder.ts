import type { TObject, TSchema } from '@sinclair/typebox';
import { STATUS_CODES } from 'node:http';
import { FIELD_RULES, PROBLEMS, type ProblemCode } from '@contracts/domain';
import { MAX_PAGE_LIMIT } from '../http/pagination';
import { RouteExample, RouteSpec } from '../routes/route.types';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENT_REPLAY_HEADER } from '../idempotency/idempotency-key';
import { takesIdempotencyKey, operationProblems, problemsByStatus, type ProblemSource } from './operation-problems';

type JsonObject = Record<string, unknown>;

/** TypeBox schemas are JSON Schema 2020-12 already, which OpenAPI 3.1 embeds as is. */
const plain = (schema: TSchema): JsonObject => JSON.parse(JSON.stringify(schema)) as JsonObject;

const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** OpenAPI 3.1 `examples` (the singular `example` is deprecated beside JSON Schema's own `examples`). */
const examples = (value: unknown, summary: string): JsonObject => (value === undefined ? {} : { examples: { example: { summary, value } } });

function parameters(schema: TObject | undefined, location: 'path' | 'query', example: Record<string, unknown> = {}): JsonObject[] {
  if (!schema) return [];
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, property]) => ({
    name,
    in: location,
    // A query parameter with a default (offset, limit) may be left out: the gateway fills it in.
    required: location === 'path' || (required.has(name) && (property as { default?: unknown }).default === undefined),
    schema: plain(property),
    ...(property.description ? { description: property.description } : {}),
    ...examples(example[name], `A valid ${name}`),
  }));
}

export const PROBLEM_SCHEMA_REF = '#/components/schemas/Problem';

const header = (name: string): JsonObject => ({ $ref: `#/components/headers/${name}` });
const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': header('RateLimit-Limit'),
  'RateLimit-Remaining': header('RateLimit-Remaining'),
  'RateLimit-Reset': header('RateLimit-Reset'),
};

/** Response headers the document names once and every operation refers to. */
const HEADERS: Record<string, JsonObject> = {
  'RateLimit-Limit': {
    description: 'Requests allowed in the current minute for the API key or the account, whichever has less left',
    schema: { type: 'integer', minimum: 1 },
  },
  'RateLimit-Remaining': { description: 'Requests left in the current minute', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Reset': { description: 'Seconds until the current minute ends and the budget is renewed', schema: { type: 'integer', minimum: 1 } },
  'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer', minimum: 1 } },
  [IDEMPOTENT_REPLAY_HEADER]: {
    description: `"true" when this answer is the stored first answer to the same ${IDEMPOTENCY_KEY_HEADER}, replayed rather than run again`,
    schema: { type: 'string', enum: ['true'] },
  },
};

/** The Idempotency-Key parameter of every write (see docs/architecture.md, "Idempotent writes"). */
const IDEMPOTENCY_KEY_PARAMETER: JsonObject = {
  name: IDEMPOTENCY_KEY_HEADER,
  in: 'header',
  required: false,
  description:
    'A key the client mints per logical request (a UUID, say). The first answer (any but 5xx or 429) is kept for 24 hours per key, ' +
    'tenant and operation; a retry with the same request gets it again with `Idempotent-Replayed: true` and changes nothing. The same key ' +
    'with another request is 422 IDEMPOTENCY_KEY_REUSED; a retry while the first still runs is 409 IDEMPOTENCY_REQUEST_IN_PROGRESS.',
  schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH, pattern: '^[\\x21-\\x7E]+$' },
  examples: { example: { summary: 'A UUID', value: '5f0c8a52-3b7e-4a36-9d0e-2f4a1b6c7d80' } },
};

/** Which documented headers a response of this status carries. */
function responseHeaders(status: number, kind: 'v2' | 'admin', write: boolean, codes: readonly ProblemCode[] = []): JsonObject {
  const rateLimited = kind === 'v2' ? RATE_LIMIT_HEADERS : {};
  if (status < 300) return { ...rateLimited, ...(write ? { [IDEMPOTENT_REPLAY_HEADER]: header(IDEMPOTENT_REPLAY_HEADER) } : {}) };
  const retry = status === 429 || status === 503 || codes.includes('IDEMPOTENCY_REQUEST_IN_PROGRESS');
  return { ...(status === 429 ? rateLimited : {}), ...(retry ? { 'Retry-After': header('Retry-After') } : {}) };
}

/**
 * One response per status, each naming the codes it can carry: in the description for a reader, as
 * `x-problem-codes` for tools, and as the enum of `code` in the schema, so a client generated from the
 * document knows them and an answer with any other code does not match the document.
 */
function problemResponses(codes: ProblemCode[], headersOf: (status: number, atStatus: ProblemCode[]) => JsonObject): JsonObject {
  return Object.fromEntries(
    [...problemsByStatus(codes)].map(([status, atStatus]) => [
      String(status),
      {
        description: `${STATUS_CODES[status] ?? 'Error'}: ${atStatus.map((code) => `${code} (${PROBLEMS[code].title})`).join('; ')}`,
        ...withHeaders(headersOf(status, atStatus)),
        'x-problem-codes': atStatus,
        content: {
          'application/problem+json': { schema: { allOf: [{ $ref: PROBLEM_SCHEMA_REF }, { properties: { code: { enum: atStatus } } }] } },
        },
      },
    ]),
  );
}

interface OperationSource {
  operationId: string;
  method: string;
  cache?: unknown;
  path: string;
  summary: string;
  description?: string;
  params?: TObject;
  query?: TObject;
  body?: TSchema;
  multipartBody?: TObject;
  success: { status: number; description: string; schema?: TSchema; mediaType?: string; alternatives?: { status: number; description: string }[] };
  scope?: ProblemSource['scope'];
  problems?: ProblemCode[];
  example?: RouteExample;
}

const withHeaders = (headers: JsonObject): JsonObject => (Object.keys(headers).length > 0 ? { headers } : {});

function operation(source: OperationSource, extra: JsonObject, kind: 'v2' | 'admin'): JsonObject {
  const example = source.example ?? {};
  const write = takesIdempotencyKey(source);
  const success: JsonObject = { description: source.success.description, ...withHeaders(responseHeaders(source.success.status, kind, write)) };
  if (source.success.schema)
    success.content = { 'application/json': { schema: plain(source.success.schema), ...examples(example.response, source.success.description) } };
  // A file download: its media type, with the bytes as a string of that type.
  if (source.success.mediaType) success.content = { [source.success.mediaType]: { schema: { type: 'string', contentMediaType: source.success.mediaType } } };
  return {
    operationId: source.operationId,
    summary: source.summary,
    ...(source.description ? { description: source.description } : {}),
    parameters: [
      ...parameters(source.params, 'path', example.params as Record<string, unknown> | undefined),
      ...parameters(source.query, 'query', example.query),
      ...(write ? [IDEMPOTENCY_KEY_PARAMETER] : []),
    ],
    ...(source.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: plain(source.body), ...examples(example.request, 'A valid request') } } } }
      : {}),
    ...(source.multipartBody
      ? {
          requestBody: {
            required: true,
            content: { 'multipart/form-data': { schema: plain(source.multipartBody), encoding: { file: { contentType: '*/*' } } } },
          },
        }
      : {}),
    responses: {
      [String(source.success.status)]: success,
      ...Object.fromEntries((source.success.alternatives ?? []).map((alt) => [String(alt.status), { ...success, description: alt.description }])),
      ...problemResponses(operationProblems(source, kind), (status, atStatus) => responseHeaders(status, kind, write, atStatus)),
    },
    ...extra,
  };
}

/** The OpenAPI 3.1 document, generated from the same tables that route and validate requests. */
export function buildOpenApi(routes: RouteSpec[], permissions: string[]): JsonObject {
  const paths: Record<string, JsonObject> = {};
  const add = (path: string, method: string, op: JsonObject) => {
    paths[openApiPath(path)] = { ...(paths[openApiPath(path)] ?? {}), [method]: op };
  };
  for (const route of routes) {
    if (route.auth === 'admin') {
      add(route.path, route.method, operation(route, { tags: ['admin'], security: [{ adminToken: [] }], 'x-extension': true }, 'admin'));
      continue;
    }
    add(
      route.path,
      route.method,
      operation(
        route,
        {
          tags: [route.tag],
          security: [{ bearerApiKey: [] }, { headerApiKey: [] }],
          'x-required-permission': route.permission,
          ...(route.extension ? { 'x-extension': true } : {}),
        },
        'v2',
      ),
    );
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Retail Media and Dynamic Creative API',
      version: '1.0.0',
      description: `Errors are application/problem+json with a stable \`code\`. Lists page with offset/limit (default 0/25, at most ${MAX_PAGE_LIMIT}) and absolute next/previous links.`,
    },
    'x-permissions': permissions,
    tags: [{ name: 'channels-plans' }, { name: 'admin', description: 'Identity administration: orgs, accounts and API keys' }],
    paths,
    components: {
      securitySchemes: {
        bearerApiKey: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <apiKey>' },
        headerApiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
        adminToken: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <ADMIN_TOKEN>' },
      },
      headers: HEADERS,
      schemas: {
        Problem: {
          type: 'object',
          required: ['type', 'title', 'status', 'detail', 'instance', 'code', 'requestId'],
          properties: {
            type: { type: 'string' },
            title: { type: 'string' },
            status: { type: 'integer' },
            detail: { type: 'string' },
            instance: { type: 'string' },
            code: { type: 'string', description: 'Stable UPPER_SNAKE code clients branch on; each response lists the codes it can carry' },
            requestId: { type: 'string' },
            requiredPermission: { type: 'string', description: 'On 403: the permission the key lacks' },
            errors: {
              type: 'array',
              items: {
                type: 'object',
                required: ['code', 'detail'],
                properties: {
                  pointer: { type: 'string' },
                  parameter: { type: 'string' },
                  header: { type: 'string' },
                  code: {
                    type: 'string',
                    description: `The rule the field breaks: ${Object.keys(FIELD_RULES).join(', ')}; or the code of a domain rule about that field (e.g. ASSET_NOT_FOUND)`,
                  },
                  detail: { type: 'string' },
                },
              },
            },
          },
        },
      },
    },
  };
}
