import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, failureLogLevel, problem, PROBLEM_CONTENT_TYPE, toAppError, toProblem, validationFailed } from '@platform/errors';
import type { Logger } from '@platform/logging';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;

/** Takes a caller's X-Request-Id when it is safe to echo, else mints one; every answer carries it. */
export const requestId: RequestHandler = (req, res, next) => {
  const given = req.get('x-request-id');
  const id = given && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
  res.locals.requestId = id;
  res.set('X-Request-Id', id);
  next();
};

export const unknownRoute: RequestHandler = (req, _res, next) => {
  next(problem('ROUTE_NOT_FOUND', `No operation answers ${req.method} ${req.path}.`));
};

/** The router's answer to a path segment that is not valid percent-encoded UTF-8 ("%FF", "%ED%A0%80"). */
export const PATH_DECODE_FAILED = /^Failed to decode param /;

export const pathEncodingProblem = (parameter: string): AppError =>
  validationFailed([{ parameter, code: 'INVALID_ENCODING', detail: `${parameter} is not valid percent-encoded UTF-8.` }]);

/** body-parser's and the router's own errors, translated to our problem codes; each 400 names what it refuses. */
function fromBodyParser(error: { type?: string; status?: number; limit?: number; message?: string; code?: string }): AppError | undefined {
  // A path the router could not decode, on a route that did not name the parameter itself (see route-binder.ts).
  if (error instanceof URIError && PATH_DECODE_FAILED.test(error.message)) return pathEncodingProblem('path');
  switch (error.type) {
    case 'entity.parse.failed':
      return problem('MALFORMED_JSON', 'The request body is not valid JSON.', {
        errors: [{ pointer: '', code: 'MALFORMED_JSON', detail: 'The body is not valid JSON.' }],
      });
    case 'entity.too.large':
      return problem('PAYLOAD_TOO_LARGE', `The request body exceeds the limit of ${error.limit} bytes.`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return problem('UNSUPPORTED_MEDIA_TYPE', 'The request body encoding is not supported; send UTF-8 JSON.');
    default:
      // A body its Content-Encoding does not describe (a gzip header on plain text): zlib's error, untyped.
      if (error.status === 400 && typeof error.code === 'string' && error.code.startsWith('Z_'))
        return problem('MALFORMED_BODY', 'The request body could not be decoded.', {
          errors: [{ header: 'content-encoding', code: 'INVALID_ENCODING', detail: 'The body is not encoded as Content-Encoding says.' }],
        });
      return undefined;
  }
}

export function problemHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) return next(error);
    // The identity store's MySQL or NATS being down answers 503, as a backend's does.
    const appError = error instanceof AppError ? error : (fromBodyParser(error as { type?: string }) ?? toAppError(error, 'A dependency of the gateway'));
    const level = failureLogLevel(appError);
    if (level === 'error') logger.error({ err: error, requestId: res.locals.requestId, path: req.path }, 'request failed');
    else if (level === 'warn')
      logger.warn(
        { requestId: res.locals.requestId, path: req.path, code: appError.code, detail: appError.detail },
        'request answered an outside host failing',
      );
    const problem = toProblem(appError, { instance: req.originalUrl, requestId: String(res.locals.requestId ?? '') });
    // Every 429 and 503 tells the client when to try again (the OpenAPI document says so on each operation).
    if ((appError.status === 429 || appError.status === 503) && !appError.headers?.['Retry-After']) res.set('Retry-After', '1');
    res
      .status(appError.status)
      .set(appError.headers ?? {})
      .type(PROBLEM_CONTENT_TYPE)
      .send(JSON.stringify(problem));
  };
}

/** Refuses bodies that are not JSON on methods that take one: 415, not a confusing "field required". */
export const requireJsonBody: RequestHandler = (req, _res, next) => {
  const hasBody = Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;
  if (['POST', 'PUT', 'PATCH', 'DELETE'].includes(req.method) && hasBody && !req.is('application/json')) {
    return next(
      problem('UNSUPPORTED_MEDIA_TYPE', `Send the body as application/json; got ${req.get('content-type') ?? 'no content type'}.`, {
        errors: [{ header: 'content-type', code: 'UNSUPPORTED_MEDIA_TYPE', detail: 'Content-Type must be application/json.' }],
      }),
    );
  }
  next();
};

/** The answer to a request without a multipart/form-data body on a route that streams one (an upload). */
export const multipartBodyRequired = (): AppError =>
  problem('UNSUPPORTED_MEDIA_TYPE', 'Send the upload as multipart/form-data with a file part.', {
    errors: [{ header: 'content-type', code: 'UNSUPPORTED_MEDIA_TYPE', detail: 'Content-Type must be multipart/form-data.' }],
  });
