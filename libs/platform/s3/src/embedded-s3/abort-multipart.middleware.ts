import { rm } from 'node:fs/promises';
import { respondWithS3Error, type S3Middleware, type S3rverStore } from './s3rver-hooks';
import { uploadDirectory } from './s3rver-layout';

const OBJECT_PATH = /^\/([^/]+)\/.+/;
/** s3rver issues upload ids as 32 hex characters; anything else never named one of its directories. */
const UPLOAD_ID = /^[0-9a-f]{32}$/;

/**
 * AbortMultipartUpload, which s3rver answers with 405: without it every failed streamed upload
 * would leave its parts on disk for good.
 */
export function abortMultipartMiddleware(store: S3rverStore): S3Middleware {
  return async function abortMultipartUpload(ctx, next) {
    const bucket = OBJECT_PATH.exec(ctx.path)?.[1];
    const uploadId = ctx.query['uploadId'];
    if (ctx.method !== 'DELETE' || bucket === undefined || uploadId === undefined) return next();
    if (typeof uploadId !== 'string' || !UPLOAD_ID.test(uploadId)) {
      return respondWithS3Error(ctx, 404, 'NoSuchUpload', 'The specified multipart upload does not exist.');
    }
    if (!(await store.getBucket(bucket))) return respondWithS3Error(ctx, 404, 'NoSuchBucket', 'The specified bucket does not exist');
    await rm(uploadDirectory(store.rootDirectory, bucket, uploadId), { recursive: true, force: true });
    ctx.status = 204;
  };
}
