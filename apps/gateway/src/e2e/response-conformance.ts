import Ajv2020, { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/** One HTTP exchange as the test client saw it. */
export interface ObservedResponse {
  method: string;
  /** The request path, with or without a query string (an absolute URL is reduced to its path). */
  path: string;
  status: number;
  contentType: string | null;
  /** The raw body text; empty when the response had none. */
  text: string;
}

type JsonObject = Record<string, unknown>;

interface MediaType {
  schema?: JsonObject;
}

interface ResponseObject {
  content?: Record<string, MediaType>;
}

interface OperationObject {
  operationId?: string;
  responses?: Record<string, ResponseObject>;
}

interface PathTemplate {
  template: string;
  pattern: RegExp;
  /** Literal segments count: /a/b beats /a/{x} when both match, as the router's order intends. */
  literalSegments: number;
  operations: Record<string, OperationObject>;
}

export class ResponseConformanceError extends Error {
  constructor(
    message: string,
    readonly details: { operation: string; status: number; errors?: ErrorObject[] },
  ) {
    super(message);
    this.name = 'ResponseConformanceError';
  }
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** Paths that are deliberately outside the documented API: probes, metrics, the docs themselves. */
const OUTSIDE_THE_API = [/^\/healthz$/, /^\/readyz$/, /^\/metrics$/, /^\/openapi\.json$/, /^\/docs(\/|$)/, /^\/static\//];

const DOCUMENT_ID = 'openapi.json';

const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

function templatePattern(template: string): RegExp {
  const source = template
    .split('/')
    .map((segment) => (/^\{[^}]+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}$`);
}

function mediaTypeOf(contentType: string | null): string | null {
  return contentType ? contentType.split(';')[0].trim().toLowerCase() : null;
}

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`).join('; ');
}

/**
 * Checks observed responses against an OpenAPI 3.1 document: the operation by method and path
 * template, the response by status (or `default`), the media type, and the JSON body against the
 * response schema, compiled by ajv's JSON Schema 2020-12 validator with `$ref`s resolved inside
 * the document. Unknown routes answered 404/405 are checked against the Problem schema.
 */
export class ResponseConformance {
  private readonly ajv: Ajv2020;
  private readonly templates: PathTemplate[];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(document: JsonObject) {
    // strict: false because OpenAPI schemas carry keywords JSON Schema does not know (example,
    // x-maxDepth, ...); they annotate and must not fail compilation.
    this.ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true });
    addFormats(this.ajv);
    // The whole document is registered so `#/components/...` refs resolve against its root.
    this.ajv.addSchema(document, DOCUMENT_ID);
    const paths = (document.paths ?? {}) as Record<string, Record<string, OperationObject>>;
    this.templates = Object.entries(paths)
      .map(([template, item]) => ({
        template,
        pattern: templatePattern(template),
        literalSegments: template.split('/').filter((segment) => segment && !segment.startsWith('{')).length,
        operations: Object.fromEntries(Object.entries(item).filter(([method]) => HTTP_METHODS.has(method))),
      }))
      .sort((a, b) => b.literalSegments - a.literalSegments);
  }

  /** True for requests this checker leaves alone: the paths outside the API. */
  static isOutsideTheApi(path: string): boolean {
    const pathname = ResponseConformance.pathnameOf(path);
    return OUTSIDE_THE_API.some((pattern) => pattern.test(pathname));
  }

  private static pathnameOf(path: string): string {
    return new URL(path, 'http://placeholder').pathname;
  }

  /** Throws a ResponseConformanceError when the response does not match the document. */
  check(observed: ObservedResponse): void {
    const pathname = ResponseConformance.pathnameOf(observed.path);
    const method = observed.method.toLowerCase();
    const template = this.templates.find((candidate) => candidate.pattern.test(pathname));
    const operation = template?.operations[method];
    if (!template || !operation) {
      // Outside every documented operation: only the router's own problem answers are expected.
      const label = `${observed.method.toUpperCase()} ${pathname} (no documented operation)`;
      if (observed.status !== 404 && observed.status !== 405) {
        throw new ResponseConformanceError(`${label}: answered ${observed.status}, expected a 404 or 405 problem`, {
          operation: label,
          status: observed.status,
        });
      }
      this.checkBody(label, observed, 'application/problem+json', { $ref: `${DOCUMENT_ID}#/components/schemas/Problem` }, `problem:${observed.status}`);
      return;
    }
    const label = `${observed.method.toUpperCase()} ${template.template} (${operation.operationId ?? 'no operationId'})`;
    const responses = operation.responses ?? {};
    const statusKey = String(observed.status) in responses ? String(observed.status) : 'default' in responses ? 'default' : undefined;
    if (!statusKey) {
      throw new ResponseConformanceError(
        `${label}: status ${observed.status} is not documented (documented: ${Object.keys(responses).join(', ')}); body: ${observed.text.slice(0, 500)}`,
        {
          operation: label,
          status: observed.status,
        },
      );
    }
    const content = responses[statusKey].content;
    if (!content || Object.keys(content).length === 0) {
      if (observed.text.length > 0) {
        throw new ResponseConformanceError(
          `${label}: status ${observed.status} documents no body, got ${observed.contentType ?? 'no content-type'}: ${observed.text.slice(0, 200)}`,
          {
            operation: label,
            status: observed.status,
          },
        );
      }
      return;
    }
    const mediaType = mediaTypeOf(observed.contentType);
    const documented = Object.keys(content);
    if (!mediaType || !(mediaType in content)) {
      throw new ResponseConformanceError(
        `${label}: status ${observed.status} answered content-type ${observed.contentType ?? '(none)'}, documented: ${documented.join(', ')}`,
        {
          operation: label,
          status: observed.status,
        },
      );
    }
    // Only JSON bodies are held to a schema; a file download is checked by its media type.
    if (!content[mediaType].schema || !/^application\/(.+\+)?json$/.test(mediaType)) return;
    const pointer = ['paths', template.template, method, 'responses', statusKey, 'content', mediaType, 'schema'].map(escapePointer).join('/');
    this.checkBody(label, observed, mediaType, { $ref: `${DOCUMENT_ID}#/${pointer}` }, pointer);
  }

  private checkBody(label: string, observed: ObservedResponse, mediaType: string, schema: JsonObject, cacheKey: string): void {
    if (mediaTypeOf(observed.contentType) !== mediaType) {
      throw new ResponseConformanceError(
        `${label}: status ${observed.status} answered content-type ${observed.contentType ?? '(none)'}, documented: ${mediaType}`,
        {
          operation: label,
          status: observed.status,
        },
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(observed.text);
    } catch {
      throw new ResponseConformanceError(`${label}: status ${observed.status} body is not JSON: ${observed.text.slice(0, 200)}`, {
        operation: label,
        status: observed.status,
      });
    }
    let validate = this.compiled.get(cacheKey);
    if (!validate) {
      validate = this.ajv.compile(schema);
      this.compiled.set(cacheKey, validate);
    }
    if (!validate(body)) {
      const errors = validate.errors ?? [];
      throw new ResponseConformanceError(
        `${label}: status ${observed.status} body does not match the document: ${describeErrors(errors)}; body: ${observed.text.slice(0, 500)}`,
        {
          operation: label,
          status: observed.status,
          errors: [...errors],
        },
      );
    }
  }
}
