import { Client } from 'minio';
import type { OutboundFetch } from '@platform/outbound-fetch';
import type { FeedLocation } from '../feed-reading';
import { feedRefused } from './feed-errors';
import type { FeedBytes, FeedReadLimits, FeedTransport } from './feed-transport';
import { httpTransport } from './http-transport';

/** How long a presigned URL stays valid: the read itself is bounded by the time cap. */
const PRESIGN_SECONDS = 15 * 60;

/** The bucket, key and endpoint an objstore feed names. */
export interface ObjectLocation {
  endpoint: string;
  region: string;
  bucket: string;
  key: string;
}

/**
 * An AWS S3 host: `s3.amazonaws.com`, `s3.<region>.amazonaws.com` or `s3-<region>.amazonaws.com`,
 * led by `<bucket>.` when the URL is virtual-hosted style (the bucket in the host, the key the path).
 */
const AWS_S3_HOST = /^(?:(.+)\.)?s3(?:[.-]([a-z0-9-]+))?\.amazonaws\.com$/;

/**
 * An objstore url is `s3://<bucket>/<key>` (AWS S3, or the S3-compatible server at urlConfig.endpoint)
 * or the URL of the object itself: path-style on any S3-compatible server
 * (`https://store.example:9000/<bucket>/<key>`), or an AWS S3 object URL of either style. The region
 * requests are signed for is urlConfig.region, else the one an AWS host names, else us-east-1.
 */
export function objectLocationOf(location: Pick<FeedLocation, 'url' | 'urlConfig'>): ObjectLocation {
  let url: URL;
  try {
    url = new URL(location.url);
  } catch {
    throw feedRefused('The objstore url is not a valid URL.');
  }
  const { endpoint, region: given } = location.urlConfig;
  if (url.protocol === 's3:') {
    const key = decodeURIComponent(url.pathname.replace(/^\//, ''));
    if (!url.hostname || !key) throw feedRefused('An s3:// url names a bucket and a key: s3://<bucket>/<key>.');
    const region = given || 'us-east-1';
    return { endpoint: endpoint || `https://s3.${region}.amazonaws.com`, region, bucket: url.hostname, key };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw feedRefused('An objstore url is s3://<bucket>/<key> or http(s)://<host>/<bucket>/<key>.');
  const aws = AWS_S3_HOST.exec(url.hostname);
  const region = given || aws?.[2] || 'us-east-1';
  if (aws?.[1]) {
    const key = decodeURIComponent(url.pathname.replace(/^\//, ''));
    if (!key) throw feedRefused('An S3 object URL names a key: https://<bucket>.s3.<region>.amazonaws.com/<key>.');
    return { endpoint: `${url.protocol}//s3.${region}.amazonaws.com`, region, bucket: aws[1], key };
  }
  const [, bucket, ...rest] = url.pathname.split('/');
  const key = decodeURIComponent(rest.join('/'));
  if (!bucket || !key) throw feedRefused('An objstore url names a bucket and a key: http(s)://<host>/<bucket>/<key>.');
  return { endpoint: url.origin, region, bucket: decodeURIComponent(bucket), key };
}

/**
 * objstore feeds: the object's GET is signed here (with accessKey/secretKey, no request made) and
 * fetched through the outbound guard like any http feed, so the same address checks and caps hold.
 */
export function objstoreTransport(outbound: OutboundFetch): FeedTransport {
  const http = httpTransport(outbound);
  return {
    async open(location: FeedLocation, limits: FeedReadLimits, signal?: AbortSignal): Promise<FeedBytes> {
      const object = objectLocationOf(location);
      const endpoint = new URL(object.endpoint);
      const useSSL = endpoint.protocol === 'https:';
      const host = endpoint.hostname.replace(/^\[(.*)\]$/, '$1');
      const client = new Client({
        endPoint: host,
        port: endpoint.port ? Number(endpoint.port) : useSSL ? 443 : 80,
        useSSL,
        accessKey: location.urlConfig.accessKey ?? '',
        secretKey: location.urlConfig.secretKey ?? '',
        // With the region fixed, presigning is local: no GetBucketLocation request.
        region: object.region,
        pathStyle: !host.endsWith('amazonaws.com'),
      });
      const signed = await client.presignedGetObject(object.bucket, object.key, PRESIGN_SECONDS);
      return http.open({ ...location, urlType: useSSL ? 'https' : 'http', url: signed, urlConfig: {} }, limits, signal);
    },
  };
}
