import type { Readable } from 'node:stream';
import type { Request } from 'express';
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { CachedView, Permission, ProblemCode } from '@contracts/domain';
import type { Principal } from '@platform/grpc';
import type { TypedBackends } from '../backends/typed-client';
import type { PageLinks } from '../http/pagination';
import type { IdentityService } from '../identity/identity.service';
import type { UploadStaging } from '../uploads/upload-staging';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * Which path parameter names the tenant the route acts in. The gateway enforces it before anything
 * else reads the request (404, indistinguishable from a missing resource), and the service checks
 * it again. `none` is for routes that act on no tenant's data (the ad-server catalog).
 */
export type RouteScope<P> = { org: keyof P & string } | { account: keyof P & string } | 'none';

/**
 * Who may call a route. `apiKey` (the default): an API key holding the route's permission, within its
 * scope, rate limited per key. `admin`: the operator's ADMIN_TOKEN (the identity administration,
 * which acts on every tenant and so has neither a permission nor a scope).
 */
export type RouteAuth = 'apiKey' | 'admin';

/** What the gateway serves itself rather than through a backend. */
export interface LocalServices {
  /** Orgs, accounts and API keys (the admin routes). */
  identity: IdentityService;
  /** Streams a multipart upload to staging storage (the routes that declare `multipartBody`). */
  uploads: UploadStaging;
}

export interface RouteContext<P, Q, B> {
  params: P;
  query: Q;
  /** The validated JSON body; `{}` for a route with a multipart body, whose stream is `req` itself, unread. */
  body: B;
  /** The API key's principal; absent on admin routes. */
  principal: Principal;
  req: Request;
  /** The backends' typed clients, with the caller's signed principal and the deadline bound in; absent on admin routes. */
  backends: TypedBackends;
  local: LocalServices;
  links(page: { offset: number; limit: number; total: number }): PageLinks;
}

export interface RouteResult {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /**
   * A success body that is not JSON (a file download), streamed to the client as it is produced; its
   * Content-Type is the route's `success.mediaType`. An error part-way can only cut the answer short.
   */
  stream?: Readable;
}

/**
 * Example values the OpenAPI document shows for an operation: path parameters, the request body and
 * the success body. openapi-coverage.spec.ts validates each against its own schema, so an example
 * that drifts from the contract fails the tests instead of misleading a reader.
 */
export interface RouteExample<P = unknown, B = unknown> {
  params?: Partial<P>;
  query?: Record<string, unknown>;
  request?: B;
  response?: unknown;
}

export interface RouteSpec<P extends TObject = TObject, Q extends TObject = TObject, B extends TSchema = TSchema> {
  operationId: string;
  method: HttpMethod;
  /** Express-style path, e.g. /v2/org/:orgId/retail-media-channels. */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  /** Who may call it; `apiKey` when absent. */
  auth?: RouteAuth;
  /**
   * The permission a key needs (every API-key route has one; admin routes none): checked here, and
   * again by each service method the route calls. Read from the declaration of the method the route's
   * operation calls (`CHANNELS_PLANS_ACCESS.createRetailCampaign` in @contracts/domain), not written
   * again; route-permissions.spec.ts fails when a method the handler calls declares another.
   */
  permission?: Permission;
  scope: RouteScope<Static<P>>;
  /**
   * The answer may be served from the gateway's response cache: a read (a GET, or a search that
   * POSTs its filters) scoped to an org or an account whose data a service announces changes of as
   * `view`, by that tenant (docs/architecture.md, "Cached views"). Every check before
   * the backend call (key, rate limit, scope, permission, validation) still runs on every request.
   */
  cache?: { view: CachedView };
  /** Not in the interface; marked x-extension in the OpenAPI document. */
  extension?: boolean;
  /**
   * The backend calls' deadline when the operation waits on a host outside the platform (a feed read
   * on request): longer than GRPC_DEADLINE_MS, never shorter. The service bounds its outside wait by
   * it, so the caller hears which host did not answer rather than a 504.
   */
  deadlineMs?: number;
  params?: P;
  query?: Q;
  body?: B;
  /**
   * A multipart/form-data body, streamed: the binder runs every check before the body (key, rate
   * limit, scope, permission, path and query; 415 for another media type) and then hands the handler the unread request, which
   * `local.uploads` streams to staging, checking the parts as they arrive. The schema documents the
   * parts in the OpenAPI document and is held to the same bounds as any body.
   */
  multipartBody?: TObject;
  /**
   * The usual success answer; `alternatives` are further 2xx statuses the handler may answer with
   * the same body schema (e.g. 200 when a create finds what it was asked to create already there).
   */
  success: {
    status: number;
    description: string;
    schema?: TSchema;
    /** For a non-JSON success body (answered as `stream`): its media type, e.g. `application/x-download`. */
    mediaType?: string;
    alternatives?: { status: number; description: string }[];
  };
  /**
   * The problem codes (catalog `PROBLEMS` in @contracts/domain) this operation's handler and the
   * services behind it can answer, beyond what every operation can (the platform's own: validation,
   * identity, scope, method, rate limit, a backend down; see `commonProblems` in the OpenAPI builder).
   * The OpenAPI document lists them per status, and the end-to-end specs fail on an answer whose code
   * the operation does not list (docs/architecture.md, "Errors").
   */
  problems?: ProblemCode[];
  example?: RouteExample<Static<P>, Static<B>>;
  handle(ctx: RouteContext<Static<P>, Static<Q>, Static<B>>): Promise<RouteResult>;
}

/** An API-key route names its permission; an admin route has none, and no tenant scope. */
type RouteAccess = { auth?: 'apiKey'; permission: Permission } | { auth: 'admin'; permission?: never; scope: 'none' };

/** Keeps each route's handler typed by its own schemas while the table holds them uniformly. */
export function defineRoute<P extends TObject, Q extends TObject, B extends TSchema>(spec: RouteSpec<P, Q, B> & RouteAccess): RouteSpec {
  return spec as unknown as RouteSpec;
}
