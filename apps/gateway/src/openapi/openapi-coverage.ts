import type { TObject, TSchema } from '@sinclair/typebox';
import { compileValidator } from '../http/validation';
import type { RouteSpec } from '../routes/route.types';
import { PROBLEM_SCHEMA_REF } from './openapi.builder';
import { IDEMPOTENCY_KEY_HEADER } from '../idempotency/idempotency-key';
import { takesIdempotencyKey, operationProblems, problemsByStatus } from './operation-problems';

type JsonObject = Record<string, unknown>;

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
const pathParameterNames = (path: string) => [...path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]);

interface GatewayOperation {
  key: string;
  admin: boolean;
  route: RouteSpec;
}

function gatewayOperations(routes: RouteSpec[]): Map<string, GatewayOperation> {
  const operations = new Map<string, GatewayOperation>();
  for (const route of routes) operations.set(`${route.method.toUpperCase()} ${openApiPath(route.path)}`, { key: '', admin: route.auth === 'admin', route });
  for (const [key, operation] of operations) operation.key = key;
  return operations;
}

/** Every operation the document names, as "METHOD /path" with its operation object. */
export function documentOperations(document: JsonObject): Map<string, { path: string; method: string; operation: JsonObject }> {
  const operations = new Map<string, { path: string; method: string; operation: JsonObject }>();
  for (const [path, item] of Object.entries((document.paths ?? {}) as Record<string, JsonObject>)) {
    for (const [method, operation] of Object.entries(item)) {
      if (HTTP_METHODS.includes(method)) operations.set(`${method.toUpperCase()} ${path}`, { path, method, operation: operation as JsonObject });
    }
  }
  return operations;
}

/** The document's `examples` values on an object that may carry them (media type or parameter). */
function exampleValues(holder: JsonObject | undefined): unknown[] {
  const found = (holder?.examples ?? {}) as Record<string, { value?: unknown }>;
  return Object.values(found).map((example) => example.value);
}

/** Validates with the gateway's own body validator: the same rules, formats and free-form bounds it enforces. */
function schemaErrors(schema: unknown, value: unknown): string[] {
  return compileValidator(schema as TSchema, 'body')(structuredClone(value)).map((e) => `${e.code}: ${e.detail}`);
}

function jsonContent(holder: JsonObject | undefined, mediaType: string): JsonObject | undefined {
  return (holder?.content as Record<string, JsonObject> | undefined)?.[mediaType];
}

function checkOperation(gateway: GatewayOperation, operation: JsonObject, permissions: string[]): string[] {
  const { route, admin } = gateway;
  const problems: string[] = [];
  let exampleCount = 0;

  if (admin) {
    const security = JSON.stringify(operation.security);
    if (security !== JSON.stringify([{ adminToken: [] }])) problems.push(`admin operation secured by ${security}, not the admin token`);
  } else {
    const permission = operation['x-required-permission'];
    if (typeof permission !== 'string' || permission === '') problems.push('no x-required-permission');
    else if (!permissions.includes(permission)) problems.push(`x-required-permission ${permission} is not in x-permissions`);
    else if (permission !== route.permission) problems.push(`x-required-permission ${permission}, but the route checks ${route.permission}`);
  }

  // Parameters: each path template variable and each query field, with a schema; examples valid.
  const parameters = (operation.parameters ?? []) as JsonObject[];
  const routed: [string, 'path' | 'query', TObject | undefined][] = [
    ...pathParameterNames(openApiPath(route.path)).map((name) => [name, 'path', route.params] as [string, 'path', TObject | undefined]),
    ...Object.keys(route.query?.properties ?? {}).map((name) => [name, 'query', route.query] as [string, 'query', TObject]),
  ];
  for (const [name, location] of routed) {
    const parameter = parameters.find((p) => p.name === name && p.in === location);
    if (!parameter) problems.push(`${location} parameter ${name} is not documented`);
    else if (typeof parameter.schema !== 'object' || parameter.schema === null) problems.push(`${location} parameter ${name} has no schema`);
    else if (location === 'path' && exampleValues(parameter).length === 0) problems.push(`path parameter ${name} has no example`);
  }
  // Headers: a write takes an Idempotency-Key (a cached read sent as POST does not), and nothing else takes one.
  const write = takesIdempotencyKey(route);
  const idempotencyKey = (p: JsonObject) => p.in === 'header' && p.name === IDEMPOTENCY_KEY_HEADER;
  if (write && !parameters.some(idempotencyKey)) problems.push(`a write, but the ${IDEMPOTENCY_KEY_HEADER} header is not documented`);
  for (const parameter of parameters) {
    if (write && idempotencyKey(parameter)) continue;
    if (!routed.some(([name, location]) => name === parameter.name && location === parameter.in))
      problems.push(`${String(parameter.in)} parameter ${String(parameter.name)} is documented but the route does not take it`);
    if (typeof parameter.schema !== 'object' || parameter.schema === null) continue;
    for (const value of exampleValues(parameter)) {
      exampleCount++;
      for (const error of schemaErrors(parameter.schema, value))
        problems.push(`example of ${String(parameter.in)} parameter ${String(parameter.name)}: ${error}`);
    }
  }

  // Request body: documented exactly when the route takes one, with a schema and a valid example.
  const requestBody = jsonContent(operation.requestBody as JsonObject | undefined, 'application/json');
  if (route.body && !requestBody?.schema) problems.push('takes a body but documents no application/json request schema');
  const multipartBody = route.multipartBody;
  if (!route.body && !multipartBody && operation.requestBody) problems.push('documents a request body the route does not read');
  const multipart = jsonContent(operation.requestBody as JsonObject | undefined, 'multipart/form-data');
  if (multipartBody && !multipart?.schema) problems.push('reads a multipart body but documents no multipart/form-data schema');
  if (requestBody) {
    const values = exampleValues(requestBody);
    if (values.length === 0) problems.push('request body has no example');
    for (const value of values) {
      exampleCount++;
      for (const error of schemaErrors(requestBody.schema, value)) problems.push(`request example: ${error}`);
    }
  }

  // Responses: the success status with its schema and example, and problem+json for every error status.
  const responses = (operation.responses ?? {}) as Record<string, JsonObject>;
  const success = responses[String(route.success.status)];
  if (!success) problems.push(`success status ${route.success.status} is not documented`);
  else if (route.success.schema) {
    const content = jsonContent(success, 'application/json');
    if (!content?.schema) problems.push(`success ${route.success.status} has no application/json schema`);
    else {
      const values = exampleValues(content);
      if (values.length === 0) problems.push(`success ${route.success.status} has no example`);
      for (const value of values) {
        exampleCount++;
        for (const error of schemaErrors(content.schema, value)) problems.push(`success example: ${error}`);
      }
    }
  }
  for (const [status, codes] of problemsByStatus(operationProblems(route as RouteSpec, admin ? 'admin' : 'v2'))) {
    const problem = jsonContent(responses[String(status)], 'application/problem+json');
    const [base, narrowed] = ((problem?.schema as JsonObject | undefined)?.allOf ?? []) as JsonObject[];
    const documentedCodes = (narrowed?.properties as { code?: { enum?: unknown } } | undefined)?.code?.enum;
    if (!problem) problems.push(`error status ${status} is not documented as application/problem+json`);
    else if (base?.$ref !== PROBLEM_SCHEMA_REF) problems.push(`error status ${status} does not use the Problem schema`);
    else if (JSON.stringify(documentedCodes) !== JSON.stringify(codes))
      problems.push(`error status ${status} documents the codes ${JSON.stringify(documentedCodes)}, the route answers ${JSON.stringify(codes)}`);
    const headers = (responses[String(status)]?.headers ?? {}) as JsonObject;
    if ((status === 429 || status === 503) && !headers['Retry-After']) problems.push(`error status ${status} does not document Retry-After`);
    if (status === 429 && !headers['RateLimit-Remaining']) problems.push('error status 429 does not document the RateLimit headers');
  }
  if (exampleCount === 0) problems.push('has no example');
  return problems;
}

/**
 * What keeps the document and the gateway the same thing: every routed operation documented and
 * nothing else, each with its permission (or the admin token), its parameter, request and response
 * schemas, problem+json for every error it can answer, and examples that satisfy their schemas.
 * Returns one line per gap, empty when the document covers the gateway.
 */
export function coverageProblems(document: JsonObject, routes: RouteSpec[]): string[] {
  const gateway = gatewayOperations(routes);
  const documented = documentOperations(document);
  const permissions = (document['x-permissions'] ?? []) as string[];
  const problems: string[] = [];
  for (const key of gateway.keys()) if (!documented.has(key)) problems.push(`${key}: routed by the gateway but missing from the document`);
  for (const key of documented.keys()) if (!gateway.has(key)) problems.push(`${key}: in the document but no route answers it`);
  for (const [key, operation] of gateway) {
    const entry = documented.get(key);
    if (entry) problems.push(...checkOperation(operation, entry.operation, permissions).map((p) => `${key}: ${p}`));
  }
  return problems;
}
