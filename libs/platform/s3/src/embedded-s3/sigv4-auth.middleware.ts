import { respondWithS3Error, type S3Middleware } from './s3rver-hooks';
import { PRESIGN_PARAMETERS, verifySignatureV4, type S3Credentials } from './sigv4';

/**
 * Makes the embedded server answer like a private MinIO bucket: only requests signed with the
 * configured key pair get through (CORS preflights aside, which carry no credentials by design).
 * Once verified, the credentials are stripped so s3rver's own check, which only knows its built-in
 * S3RVER key and does not verify V4 signatures, sees a plain request.
 */
export function sigv4AuthMiddleware(credentials: S3Credentials): S3Middleware {
  return async function sigv4Auth(ctx, next) {
    if (ctx.method === 'OPTIONS') return next();
    const outcome = verifySignatureV4({ method: ctx.method, url: ctx.req.url ?? '/', headers: ctx.req.headers }, credentials);
    switch (outcome.kind) {
      case 'rejected':
        return respondWithS3Error(ctx, outcome.status, outcome.code, outcome.message);
      case 'anonymous':
        return respondWithS3Error(ctx, 403, 'AccessDenied', 'Access Denied: requests must be signed.');
      case 'verified':
        if (outcome.via === 'header') delete ctx.req.headers.authorization;
        else ctx.querystring = withoutPresignParameters(ctx.querystring);
        // s3rver only lets authenticated callers override response headers (response-content-type, ...).
        ctx.state.account = { id: 'embedded' };
        return next();
    }
  };
}

function withoutPresignParameters(querystring: string): string {
  return querystring
    .split('&')
    .filter((pair) => !PRESIGN_PARAMETERS.includes(decodeURIComponent(pair.split('=')[0])))
    .join('&');
}
