import { pipeline } from 'node:stream/promises';
import express, { Router, Request, Response, NextFunction, ErrorRequestHandler, RequestHandler } from 'express';
import { validationFailed, withDeadline } from '@platform/errors';
import { accountNotFound, assertPermission, orgNotFound, Principal, principalMetadata } from '@platform/grpc';
import type { BackendConnections } from '../backends/typed-client';
import { compileValidator, CompiledValidator } from '../http/validation';
import { methodNotAllowedError, routePathPattern } from '../http/method-not-allowed';
import { multipartBodyRequired, PATH_DECODE_FAILED, pathEncodingProblem, requireJsonBody } from '../http/problem.middleware';
import { pageLinks } from '../http/pagination';
import { inRequestScope } from '../http/request-scope';
import type { AdminAuthenticator, Authenticator } from '../http/authenticate';
import type { RateLimit } from '../rate-limits/rate-limit';
import type { CacheOutcome } from '../http/http-metrics';
import type { FreshnessGate } from '../cache/invalidation-channel';
import type { CachedResponse, ResponseCache } from '../cache/response-cache';
import { IDEMPOTENT_REPLAY_HEADER, readIdempotencyKey, requestFingerprint, takesIdempotencyKey } from '../idempotency/idempotency-key';
import type { StoredAnswer } from '../idempotency/idempotency.store';
import type { IdempotentWrite, IdempotentWrites } from '../idempotency/idempotent-writes';
import { LocalServices, RouteContext, RouteResult, RouteScope, RouteSpec } from './route.types';

export interface RouteBinderDeps {
  /** API keys: every route but the admin ones. */
  authenticate: Authenticator;
  /** The operator's ADMIN_TOKEN: the routes declared `auth: 'admin'`. */
  authenticateAdmin: AdminAuthenticator;
  rateLimit: RateLimit;
  /** Idempotency-Key on POST, PUT, PATCH and DELETE: the first answer per key, tenant and operation, replayed. */
  idempotency: IdempotentWrites;
  /** The largest JSON body a route accepts (413 beyond); a multipart body is bounded by its own route. */
  bodyLimitBytes: number;
  local: LocalServices;
  backends: BackendConnections;
  principalKey: Buffer;
  deadlineMs: number;
  publicBaseUrl?: string;
  /** Serves routes that declare `cache` while the gate vouches for the cache; absent, they always ask the backend. */
  responseCache?: { cache: ResponseCache; gate: FreshnessGate; count(route: string, outcome: CacheOutcome): void };
}

type ScopeCheck = (principal: Principal, params: Record<string, unknown>) => void;

interface CompiledRoute {
  spec: RouteSpec;
  scope: ScopeCheck;
  /** More specific paths of other methods this route's template would also match (see shadowingRoutes). */
  shadows: { regex: RegExp; allow: string }[];
  /** Reads a JSON body before the route's checks, parsed and bounded; a multipart body is left in the stream. */
  bodyReader: RequestHandler[];
  params?: CompiledValidator;
  query?: CompiledValidator;
  body?: CompiledValidator;
}

/**
 * Tenant scope, from the route's declaration, as a 404 indistinguishable from a missing resource:
 * a key must not learn that another org or account exists.
 */
export function scopeCheck(scope: RouteScope<Record<string, unknown>>): ScopeCheck {
  if (scope === 'none') return () => undefined;
  if ('org' in scope) {
    const name = scope.org;
    return (principal, params) => {
      if (params[name] !== principal.orgId) throw orgNotFound(String(params[name]));
    };
  }
  const name = scope.account;
  return (principal, params) => {
    if (!principal.accountIds.includes(params[name] as number)) throw accountNotFound(String(params[name]));
  };
}

/**
 * Mounts every route of the table, admin and upload routes included. Order of checks: a JSON body's
 * media type, syntax and size (415, 400, 413); the caller (401: an API key, or the admin token on
 * admin routes); the key's rate limit (429); path syntax (400); scope (404); permission (403); the
 * account's rate limit (429); query and JSON body (400), or that a multipart body is one (415); the Idempotency-Key of a write (400, a
 * replay, 409 or 422); then the handler. A multipart body is read by the handler, after every one of
 * those checks.
 */
export function bindRoutes(routes: RouteSpec[], deps: RouteBinderDeps): Router {
  const router = Router();
  const jsonBody = [requireJsonBody, express.json({ limit: deps.bodyLimitBytes, strict: true })];
  for (const spec of routes) {
    // Fail at start-up, not open: an API-key route without a permission would let any key through.
    if (spec.auth !== 'admin' && !spec.permission) throw new Error(`${spec.operationId} declares no permission`);
    const compiled: CompiledRoute = {
      spec,
      scope: scopeCheck(spec.scope as RouteScope<Record<string, unknown>>),
      shadows: shadowingRoutes(spec, routes),
      bodyReader: spec.multipartBody ? [] : jsonBody,
      params: spec.params && compileValidator(spec.params, 'path'),
      query: spec.query && compileValidator(spec.query, 'query'),
      body: spec.body && compileValidator(spec.body, 'body'),
    };
    router[spec.method](spec.path, ...compiled.bodyReader, (req: Request, res: Response, next: NextFunction) => {
      inRequestScope(res, () => handle(compiled, deps, req, res)).catch(next);
    });
  }
  router.use(undecodableParameter(routes));
  return router;
}

/**
 * The router refuses a path segment that is not valid percent-encoded UTF-8 before any route runs;
 * this names the parameter of the route template that segment fills, as every other 400 does.
 */
function undecodableParameter(routes: RouteSpec[]): ErrorRequestHandler {
  const templates = routes.map((spec) => spec.path.split('/'));
  return (error: unknown, req, _res, next) => {
    if (!(error instanceof URIError) || !PATH_DECODE_FAILED.test(error.message)) return next(error);
    const segments = req.path.split('/');
    const undecodable = (segment: string) => {
      try {
        decodeURIComponent(segment);
        return false;
      } catch {
        return true;
      }
    };
    for (const template of templates) {
      if (template.length !== segments.length || !template.every((part, i) => part.startsWith(':') || part === segments[i])) continue;
      const index = segments.findIndex((segment, i) => template[i].startsWith(':') && undecodable(segment));
      if (index >= 0) return next(pathEncodingProblem(template[index].slice(1)));
    }
    next(error);
  };
}

/**
 * Paths of other methods that this route's template matches only through a parameter: `GET
 * .../media-plans/:mediaPlanId` also matches `.../media-plans/auto`, which exists for POST alone. Such a
 * request means the literal path with the wrong method, so it answers 405 with Allow, as any other
 * path does under a method it lacks, rather than a 400 for a parameter the caller never meant to send.
 */
export function shadowingRoutes(spec: RouteSpec, routes: RouteSpec[]): { regex: RegExp; allow: string }[] {
  const segments = (path: string) => path.split('/');
  const mine = segments(spec.path);
  const isParam = (part: string) => part.startsWith(':');
  const shadows = new Map<string, string[]>();
  for (const other of routes) {
    const theirs = segments(other.path);
    if (other.method === spec.method || theirs.length !== mine.length) continue;
    const narrower = theirs.every((part, i) => part === mine[i] || isParam(mine[i]));
    const literalWhereIHaveParam = theirs.some((part, i) => isParam(mine[i]) && !isParam(part));
    // A route of this very method at that path would be matched on its own; no shadow then.
    const servedByMyMethod = routes.some((r) => r.method === spec.method && r.path === other.path);
    if (!narrower || !literalWhereIHaveParam || servedByMyMethod) continue;
    shadows.set(other.path, [...(shadows.get(other.path) ?? []), other.method.toUpperCase()]);
  }
  return [...shadows].map(([path, methods]) => ({ regex: routePathPattern(path), allow: [...new Set(methods)].join(', ') }));
}

async function handle({ spec, scope, shadows, params, query, body }: CompiledRoute, deps: RouteBinderDeps, req: Request, res: Response): Promise<void> {
  // Before anything is awaited: a cached answer must have survived every notice published before now.
  const arrival = spec.cache && deps.responseCache?.gate.mark();
  const shadow = shadows.find((candidate) => candidate.regex.test(req.path));
  if (shadow) throw methodNotAllowedError(req.method, req.path, shadow.allow);
  res.locals.route = spec.path;
  const principal = await caller(spec, deps, req, res);

  const pathValues: Record<string, unknown> = { ...req.params };
  const pathErrors = params ? params(pathValues) : [];
  if (pathErrors.length > 0) throw validationFailed(pathErrors);
  if (principal) {
    scope(principal, pathValues);
    assertPermission(principal, spec.permission as string);
    await consumeAccountBudget(spec, deps, res, pathValues);
  }

  const queryValues: Record<string, unknown> = { ...(req.query as Record<string, unknown>) };
  // A multipart body is still in the request stream, for the handler to read.
  const bodyValue: unknown = req.body === undefined || spec.multipartBody ? {} : req.body;
  const errors = [...(query ? query(queryValues) : []), ...(body ? body(bodyValue) : [])];
  if (errors.length > 0) throw validationFailed(errors);
  // After scope and permission, as for any body: another tenant's key learns 404 here, not how to upload.
  if (spec.multipartBody && !req.is('multipart/form-data')) throw multipartBodyRequired();

  const started = await idempotentStart(spec, deps, req, principal, { params: pathValues, query: queryValues, body: bodyValue });
  if (started && 'replay' in started) return sendReplay(res, started.replay);
  const write = started?.write;

  const cached = spec.cache && deps.responseCache ? cacheLookup(spec, deps, req, pathValues) : undefined;
  if (cached) {
    const hit = await cached.hit(arrival ?? 0);
    if (hit) return sendJson(res, hit);
  }

  const ctx: RouteContext<unknown, unknown, unknown> = {
    params: pathValues,
    query: queryValues,
    body: bodyValue,
    principal: principal as Principal,
    req,
    backends: principal
      ? deps.backends.bind(principalMetadata(principal, deps.principalKey), Math.max(spec.deadlineMs ?? 0, deps.deadlineMs))
      : (undefined as never),
    local: deps.local,
    links: (page) => pageLinks(req, deps.publicBaseUrl, page),
  };
  let result: RouteResult;
  try {
    const handled = spec.handle(ctx as never);
    // An admin handler reads and writes the identity store itself, not through a backend call that
    // carries the deadline: the same budget bounds it, so a hung database answers 504, not never.
    result = await (spec.auth === 'admin' ? withDeadline(handled, deps.deadlineMs, 'The identity store') : handled);
  } catch (error) {
    await write?.failed(error, { instance: req.originalUrl, requestId: String(res.locals.requestId ?? '') });
    throw error;
  }
  const status = result.status ?? spec.success.status;
  if (result.stream || result.body === undefined) {
    if (result.headers) res.set(result.headers);
    res.statusCode = status;
    if (!result.stream) {
      await write?.succeeded({ status, headers: { ...result.headers }, body: Buffer.alloc(0) });
      res.end();
      return;
    }
    await write?.abandon();
    res.setHeader('Content-Type', spec.success.mediaType ?? 'application/octet-stream');
    try {
      await pipeline(result.stream, res);
    } catch {
      // The status and headers are gone: a failure part-way can only cut the answer short, which pipeline did.
    }
    return;
  }
  const answer = jsonAnswer(status, result);
  cached?.fill(answer);
  await write?.succeeded({ status, headers: { ...answer.headers, 'Content-Type': JSON_CONTENT_TYPE }, body: answer.body });
  sendJson(res, answer);
}

/**
 * A write sent with an Idempotency-Key, after every check (a refused request claims nothing): the
 * stored first answer to replay, or the claim under which this one runs. The key is per tenant (the
 * route's org or account; the API key on a route of no tenant) and operation.
 */
async function idempotentStart(
  spec: RouteSpec,
  deps: RouteBinderDeps,
  req: Request,
  principal: Principal | undefined,
  request: { params: Record<string, unknown>; query: Record<string, unknown>; body: unknown },
): Promise<{ replay: StoredAnswer } | { write: IdempotentWrite } | undefined> {
  if (!takesIdempotencyKey(spec)) return undefined;
  const key = readIdempotencyKey(req);
  if (key === undefined) return undefined;
  const fingerprint = requestFingerprint({ operation: spec.operationId, ...request, body: spec.multipartBody ? null : request.body });
  return deps.idempotency.begin({ tenant: idempotencyTenant(spec, principal, request.params), operation: spec.operationId, key }, fingerprint);
}

function idempotencyTenant(spec: RouteSpec, principal: Principal | undefined, params: Record<string, unknown>): string {
  if (!principal) return 'admin';
  const scope = spec.scope as RouteScope<Record<string, unknown>>;
  if (scope === 'none') return `key:${principal.keyId}`;
  return 'org' in scope ? `org:${String(params[scope.org])}` : `account:${String(params[scope.account])}`;
}

function sendReplay(res: Response, { status, headers, body }: StoredAnswer): void {
  res.set(headers);
  res.setHeader(IDEMPOTENT_REPLAY_HEADER, 'true');
  res.statusCode = status;
  res.setHeader('Content-Length', body.length);
  res.end(body);
}

/**
 * Who is calling: an API key's principal, counted against its rate limit; or, on an admin route,
 * the operator, who presents the admin token and has no principal (nor scope, nor rate limit).
 */
async function caller(spec: RouteSpec, deps: RouteBinderDeps, req: Request, res: Response): Promise<Principal | undefined> {
  if (spec.auth === 'admin') {
    deps.authenticateAdmin(req);
    return undefined;
  }
  const principal = await deps.authenticate(req);
  res.locals.keyId = principal.keyId;
  res.set(await deps.rateLimit.consume({ keyId: principal.keyId }));
  return principal;
}

/**
 * The account's own budget, over every key acting in it: counted only once scope has passed, so that
 * no key can spend the budget of an account it may not act in. Its headers replace the key's when
 * the account has less left.
 */
async function consumeAccountBudget(spec: RouteSpec, deps: RouteBinderDeps, res: Response, pathValues: Record<string, unknown>): Promise<void> {
  const scope = spec.scope as RouteScope<Record<string, unknown>>;
  if (scope === 'none' || !('account' in scope)) return;
  const headers = await deps.rateLimit.consume({ accountId: pathValues[scope.account] as number });
  const keyRemaining = Number(res.getHeader('RateLimit-Remaining') ?? Infinity);
  if (headers['RateLimit-Remaining'] !== undefined && Number(headers['RateLimit-Remaining']) < keyRemaining) res.set(headers);
}

function jsonAnswer(status: number, result: RouteResult): CachedResponse {
  return { status, headers: result.headers, body: Buffer.from(JSON.stringify(result.body)) };
}

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** What res.json would send, without its detours (callback names, ETag, freshness checks). */
function sendJson(res: Response, { status, headers, body }: CachedResponse): void {
  if (headers) res.set(headers);
  res.statusCode = status;
  res.setHeader('Content-Type', JSON_CONTENT_TYPE);
  res.setHeader('Content-Length', body.length);
  res.end(body);
}

interface CacheLookup {
  /** The cached answer, once a round trip since the request's arrival has shown it still current. */
  hit(arrival: number): Promise<CachedResponse | undefined>;
  /** Keeps the backend's answer, unless the tenant's view changed while it was being fetched. */
  fill(answer: CachedResponse): void;
}

/**
 * The key is everything the answer depends on: the route, the tenant (the org or account its scope
 * names), the query as sent, the body (a search) and the base of the page links in it. The principal
 * is not: scope and permission were checked above, and what a cacheable route answers is the same for
 * every key that passes them.
 */
function cacheLookup(spec: RouteSpec, deps: RouteBinderDeps, req: Request, pathValues: Record<string, unknown>): CacheLookup | undefined {
  const { cache, gate, count } = deps.responseCache as NonNullable<RouteBinderDeps['responseCache']>;
  const view = (spec.cache as NonNullable<RouteSpec['cache']>).view;
  const scope = spec.scope as { org: string } | { account: string };
  const tenant = String(pathValues['org' in scope ? scope.org : scope.account]);
  if (!cache.enabled || !gate.isLive()) {
    count(spec.path, 'bypass');
    return undefined;
  }
  const linkBase = deps.publicBaseUrl ?? `${req.protocol}://${req.get('host') ?? ''}`;
  const body = spec.body ? JSON.stringify(req.body) : '';
  const key = `${spec.operationId}\n${tenant}\n${linkBase}\n${req.originalUrl}\n${body}`;
  const ticket = cache.ticket();
  return {
    hit: async (arrival) => {
      const entry = cache.get(key);
      // The entry must also have survived the wait: a notice delivered meanwhile removed it.
      if (entry && (await gate.fence(arrival)) && cache.peek(key) === entry) {
        count(spec.path, 'hit');
        return entry;
      }
      count(spec.path, 'miss');
      return undefined;
    },
    fill: (answer) => {
      // Still live now: a disconnect meanwhile has cleared the cache and so refuses the ticket.
      if (answer.status === 200) cache.set(key, view, tenant, answer, ticket);
    },
  };
}
