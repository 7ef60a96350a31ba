import { mkdir } from 'node:fs/promises';
import { isIPv6 } from 'node:net';
import type { Client } from 'minio';
import { abortMultipartMiddleware } from './embedded-s3/abort-multipart.middleware';
import { listObjectsV2Middleware } from './embedded-s3/list-objects-v2.middleware';
import { insertBeforeRouting, onServerError, s3rverStore } from './embedded-s3/s3rver-hooks';
import { sigv4AuthMiddleware } from './embedded-s3/sigv4-auth.middleware';
import { tolerateConcurrentDeletes } from './embedded-s3/tolerant-delete';
import { createMinioClient } from './minio-client.factory';

export interface EmbeddedS3Options {
  /** Default 127.0.0.1: the server has no TLS and is meant for one machine. */
  host?: string;
  /** Default 9000; 0 picks a free port (tests). */
  port?: number;
  /** Where buckets and objects are kept as plain files; created if missing. */
  directory: string;
  /** The key pair requests must be signed with. Default S3RVER / S3RVER, as in @platform/config. */
  accessKey?: string;
  secretKey?: string;
  /** Told about requests that failed inside the server (5xx), not about ordinary 4xx answers. */
  onError?: (error: Error) => void;
}

export interface EmbeddedS3 {
  /** Base URL to use as S3_ENDPOINT, e.g. http://127.0.0.1:9000 */
  endpoint: string;
  /** A minio client signed with the server's key pair, for a test that acts as a customer's bucket owner. */
  client(): Client;
  close(): Promise<void>;
}

/**
 * An S3-compatible server on local files (s3rver), for `npm start` without MinIO and for integration
 * tests. Ahead of s3rver's routing it verifies V4 signatures against the configured key pair and serves
 * ListObjectsV2 / HEAD bucket itself, where s3rver is broken on Node 20 (see list-objects-v2.middleware),
 * implements AbortMultipartUpload, and keeps concurrent deletions from failing (see tolerant-delete).
 */
export async function startEmbeddedS3({
  host = '127.0.0.1',
  port = 9000,
  directory,
  accessKey = 'S3RVER',
  secretKey = 'S3RVER',
  onError,
}: EmbeddedS3Options): Promise<EmbeddedS3> {
  await mkdir(directory, { recursive: true });
  // Loaded on demand: s3rver is a dev dependency, absent from production images that import this library.
  const { default: S3rver } = await import('s3rver');
  const server = new S3rver({
    address: host,
    port,
    directory,
    // Our logger, not s3rver's console output; silent also stops Koa printing every error to stderr.
    silent: true,
    // Clients address buckets by path; never guess a bucket from the Host header.
    vhostBuckets: false,
  });
  const store = s3rverStore(server);
  tolerateConcurrentDeletes(store);
  insertBeforeRouting(server, sigv4AuthMiddleware({ accessKey, secretKey }), listObjectsV2Middleware(store), abortMultipartMiddleware(store));
  onServerError(server, (error) => {
    if (onError && (error.status === undefined || error.status >= 500)) onError(error);
  });
  const address = await server.run();
  const urlHost = isIPv6(address.address) ? `[${address.address}]` : address.address;
  const endpoint = `http://${urlHost}:${address.port}`;
  return {
    endpoint,
    client: () => createMinioClient({ endpoint, accessKey, secretKey }),
    close: () => server.close(),
  };
}
