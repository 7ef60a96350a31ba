import { createHash } from 'node:crypto';
import type { Client } from 'minio';
import type { MultipartSession, PartSink } from './multipart-upload';

/**
 * Drives the multipart calls directly instead of minio's putObject, which buffers a whole object
 * up to its 64 MiB part size and, above it, first lists in-progress uploads (ListMultipartUploads),
 * a call some S3-compatible servers (s3rver) do not implement.
 */
export function minioPartSink(client: Client, bucket: string, key: string, contentType: string): PartSink {
  const headers = { 'Content-Type': contentType };
  return {
    async putWhole(body) {
      await client.putObject(bucket, key, body, body.length, headers);
    },
    async beginMultipart(): Promise<MultipartSession> {
      const uploadId = await client.initiateNewMultipartUpload(bucket, key, headers);
      // minio puts the upload id into these queries unescaped; AWS ids may contain characters that need it.
      const escapedUploadId = encodeURIComponent(uploadId);
      return {
        async uploadPart(partNumber, body) {
          const md5 = createHash('md5').update(body).digest('base64');
          const { etag } = await client.uploadPart(
            { bucketName: bucket, objectName: key, uploadID: escapedUploadId, partNumber, headers: { 'Content-MD5': md5 } },
            body,
          );
          return etag;
        },
        async complete(parts) {
          await client.completeMultipartUpload(bucket, key, uploadId, parts);
        },
        async abort() {
          await client.abortMultipartUpload(bucket, key, escapedUploadId);
        },
      };
    },
  };
}
