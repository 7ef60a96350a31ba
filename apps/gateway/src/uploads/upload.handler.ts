import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Express, type Request, type Response } from 'express';
import { PERMISSIONS } from '@contracts/domain';
import { validationFailed } from '@platform/errors';
import { assertPermission, principalMetadata } from '@platform/grpc';
import type { AccessLogger, Logger } from '@platform/logging';
import type { ObjectStore } from '@platform/s3';
import type { BackendConnections } from '../backends/typed-client';
import { accessLog } from '../http/access-log';
import type { Authenticator } from '../http/authenticate';
import type { HttpMetrics } from '../http/http-metrics';
import { securityHeaders } from '../http/security-headers';
import { problemHandler, requestId } from '../http/problem.middleware';
import type { RateLimit } from '../http/rate-limit';
import { compileValidator } from '../http/validation';
import { AccountId, PathParams } from '../routes/common.schemas';
import { scopeCheck } from '../routes/route-binder';
import { stageMultipartUpload, uploadTooLarge } from './multipart-upload';

export interface UploadHandlerDeps {
  logger: Logger;
  /** The API app's access log and metrics, so uploads are logged and counted like every request. */
  accessLogger: AccessLogger;
  metrics: HttpMetrics;
  authenticate: Authenticator;
  rateLimit: RateLimit;
  backends: BackendConnections;
  principalKey: Buffer;
  deadlineMs: number;
  store: ObjectStore;
  maxBytes: number;
}

export const UPLOAD_PATH = /^\/v2\/accounts\/([^/]+)\/asset-library\/?$/;

/** Room the multipart framing and the path field take beside the file itself. */
const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

/**
 * Whether a request is a multipart upload of the asset library. Those are answered by the upload
 * app, ahead of the JSON app whose body rules (application/json only, BODY_LIMIT_BYTES) they would
 * break; the route table still documents the operation and answers a JSON body with 415.
 */
export function isMultipartUpload(req: IncomingMessage): boolean {
  return req.method === 'POST' && UPLOAD_PATH.test((req.url ?? '').split('?')[0]) && /^multipart\/form-data/i.test(req.headers['content-type'] ?? '');
}

/**
 * POST /v2/accounts/:accountId/asset-library with a multipart body: the same checks as every route,
 * in the same order (identity 401, rate limit 429, path 400, scope 404, permission 403), then the
 * file streamed to staging and handed to storage-library, which queues the worker.
 */
export function createUploadApp(deps: UploadHandlerDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId);
  app.use(accessLog(deps.accessLogger, deps.metrics));
  app.use(securityHeaders({ crossOriginResourcePolicy: { policy: 'same-site' } }));
  const params = compileValidator(PathParams({ accountId: AccountId }), 'path');
  const scope = scopeCheck({ account: 'accountId' });
  app.post('/v2/accounts/:accountId/asset-library', (req: Request, res: Response, next) => {
    (async () => {
      const principal = await deps.authenticate(req);
      res.set(await deps.rateLimit.consume(principal.keyId));
      const values: Record<string, unknown> = { ...req.params };
      const errors = params(values);
      if (errors.length > 0) throw validationFailed(errors);
      scope(principal, values);
      assertPermission(principal, PERMISSIONS.assetLibraryEdit);
      const declared = Number(req.get('content-length') ?? 0);
      if (declared > deps.maxBytes + MULTIPART_OVERHEAD_BYTES) {
        res.set('Connection', 'close');
        throw uploadTooLarge(deps.maxBytes);
      }
      const accountId = values.accountId as number;
      const staged = await stageMultipartUpload(req, accountId, deps.store, deps.maxBytes);
      const backends = deps.backends.bind(principalMetadata(principal, deps.principalKey), deps.deadlineMs);
      try {
        const { queueId } = await backends.storageLibrary.startUpload({ accountId, ...staged });
        const json = JSON.stringify({ queueId });
        res.status(200).set('Content-Type', 'application/json; charset=utf-8').end(json);
      } catch (error) {
        await deps.store.deleteObject(staged.stagingKey).catch(() => undefined);
        throw error;
      }
    })().catch(next);
  });
  app.use(problemHandler(deps.logger));
  return app;
}

/** The server's request listener: uploads to the upload app, everything else to the API app. */
export function withUploads(uploads: Express, api: Express): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => (isMultipartUpload(req) ? uploads(req, res) : api(req, res));
}
