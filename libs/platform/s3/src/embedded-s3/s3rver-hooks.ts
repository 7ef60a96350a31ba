import type { IncomingMessage } from 'node:http';
import type S3rver from 's3rver';

/**
 * The slice of Koa's context our middleware touches. s3rver is a Koa app, but its type declarations
 * hide that, and pulling in Koa's types for four fields is not worth a dependency.
 */
export interface S3Context {
  method: string;
  path: string;
  querystring: string;
  query: Record<string, string | string[] | undefined>;
  req: IncomingMessage;
  state: Record<string, unknown>;
  status: number;
  type: string;
  body: unknown;
}

export type S3Middleware = (ctx: S3Context, next: () => Promise<void>) => Promise<void>;

/** What s3rver's filesystem store offers that our listing needs. */
export interface S3rverStore {
  rootDirectory: string;
  getBucket(bucket: string): Promise<object | null>;
  getMetadata(bucket: string, key: string): Promise<Record<string, string | number | undefined>>;
  deleteObject(bucket: string, key: string): Promise<void>;
}

interface S3rverInternals {
  middleware: S3Middleware[];
  store: S3rverStore;
  on(event: 'error', listener: (error: Error & { status?: number }) => void): void;
}

function internals(server: S3rver): S3rverInternals {
  return server as unknown as S3rverInternals;
}

/**
 * Runs our middleware ahead of s3rver's routing but inside its XML encoder, so a handler may answer
 * with a plain object that s3rver renders as S3 XML. Must be called before run(): Koa composes the
 * middleware list when the server starts listening.
 */
export function insertBeforeRouting(server: S3rver, ...middleware: S3Middleware[]): void {
  const stack = internals(server).middleware;
  // s3rver 3.7 stacks: logger, XML encoder, mount path, vhost, router. Anchor on the named vhost step.
  const vhostIndex = stack.findIndex((step) => step.name === 'vhost');
  if (vhostIndex === -1) throw new Error('unexpected s3rver middleware layout: no "vhost" step; check the s3rver version');
  stack.splice(vhostIndex, 0, ...middleware);
}

export function s3rverStore(server: S3rver): S3rverStore {
  return internals(server).store;
}

export function onServerError(server: S3rver, listener: (error: Error & { status?: number }) => void): void {
  internals(server).on('error', listener);
}

/** An S3 error document; HEAD responses drop the body and clients fall back to the status. */
export function respondWithS3Error(ctx: S3Context, status: number, code: string, message: string): void {
  ctx.status = status;
  ctx.type = 'application/xml';
  ctx.body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${escapeXml(code)}</Code><Message>${escapeXml(message)}</Message></Error>`;
}

function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (char) => `&#${char.charCodeAt(0)};`);
}
