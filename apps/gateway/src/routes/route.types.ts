import type { Request } from 'express';
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { Client } from '@grpc/grpc-js';
import type { channelsPlansV1 } from '@contracts/proto';
import type { Principal } from '@platform/grpc';
import type { PageLinks } from '../http/pagination';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** gRPC clients of the backends the gateway routes to. */
export interface Backends {
  channelsPlans: channelsPlansV1.ChannelsPlansServiceClient;
}

type Callback<Res> = (error: import('@grpc/grpc-js').ServiceError | null, response: Res) => void;
export type UnaryMethod<Req, Res> = (request: Req, metadata: import('@grpc/grpc-js').Metadata, options: { deadline: Date }, callback: Callback<Res>) => unknown;

export interface RouteContext<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  principal: Principal;
  req: Request;
  backends: Backends;
  /** Calls a backend with the caller's signed principal and the gateway's deadline. */
  call<Req, Res>(client: Client, method: UnaryMethod<Req, Res>, request: Req): Promise<Res>;
  links(page: { offset: number; limit: number; total: number }): PageLinks;
}

export interface RouteResult {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RouteSpec<P extends TObject = TObject, Q extends TObject = TObject, B extends TSchema = TSchema> {
  operationId: string;
  method: HttpMethod;
  /** Express-style path, e.g. /v2/org/:orgId/retail-media-channels. */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  /** The permission a key needs; checked at the edge and again by the service. */
  permission: string;
  /** Not in interface.md; marked x-extension in the OpenAPI document. */
  extension?: boolean;
  params?: P;
  query?: Q;
  body?: B;
  success: { status: number; description: string; schema?: TSchema };
  /** Problem statuses this operation documents beyond the common 400/401/403/404. */
  problems?: number[];
  handle(ctx: RouteContext<Static<P>, Static<Q>, Static<B>>): Promise<RouteResult>;
}

/** Keeps each route's handler typed by its own schemas while the table holds them uniformly. */
export function defineRoute<P extends TObject, Q extends TObject, B extends TSchema>(spec: RouteSpec<P, Q, B>): RouteSpec {
  return spec as unknown as RouteSpec;
}
