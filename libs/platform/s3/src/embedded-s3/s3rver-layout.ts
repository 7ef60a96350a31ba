import { join } from 'node:path';

// How s3rver 3.7 lays a bucket out on disk; stored-keys and the abort handler read it directly.

/** Key "a/b.png" is the file "<bucket>/a/b.png._S3rver_object", beside its .md5 and metadata siblings. */
export const OBJECT_SUFFIX = '._S3rver_object';

/** In-progress multipart uploads: "<bucket>/._S3rver_uploads/<uploadId>/<partNumber>". */
export const UPLOADS_DIRECTORY = '._S3rver_uploads';

export function uploadDirectory(rootDirectory: string, bucket: string, uploadId: string): string {
  return join(rootDirectory, bucket, UPLOADS_DIRECTORY, uploadId);
}
