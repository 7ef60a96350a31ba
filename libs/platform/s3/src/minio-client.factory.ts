import { Client, type ClientOptions } from 'minio';

export interface S3Connection {
  /** Base URL of an S3-compatible server, e.g. http://127.0.0.1:9000 or https://s3.eu-west-1.amazonaws.com */
  endpoint: string;
  accessKey: string;
  secretKey: string;
  region?: string;
}

/**
 * Translates our one-URL configuration into minio's split options.
 * Path-style addressing for everything but AWS: MinIO, the embedded server and most on-premise
 * stores do not resolve `<bucket>.<host>` names.
 */
export function minioClientOptions({ endpoint, accessKey, secretKey, region = 'us-east-1' }: S3Connection): ClientOptions {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new Error(`S3 endpoint ${JSON.stringify(endpoint)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`S3 endpoint ${JSON.stringify(endpoint)} must use http or https`);
  }
  if (url.pathname !== '/' || url.search || url.username) {
    throw new Error(`S3 endpoint ${JSON.stringify(endpoint)} must be a bare origin, without path, query or credentials`);
  }
  const useSSL = url.protocol === 'https:';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return {
    endPoint: host,
    port: url.port ? Number(url.port) : useSSL ? 443 : 80,
    useSSL,
    accessKey,
    secretKey,
    // A fixed region spares a GetBucketLocation round trip before the first request to each bucket.
    region,
    pathStyle: !host.endsWith('amazonaws.com'),
  };
}

export function createMinioClient(connection: S3Connection): Client {
  return new Client(minioClientOptions(connection));
}
