import { join } from 'node:path';
import { decodeContinuationToken, encodeContinuationToken, selectListObjectsV2, type ListingPosition } from './list-objects-v2';
import { respondWithS3Error, type S3Context, type S3Middleware, type S3rverStore } from './s3rver-hooks';
import { listStoredKeys } from './stored-keys';

const BUCKET_PATH = /^\/([^/]+)\/?$/;
const MAX_KEYS_LIMIT = 1000;

/**
 * Serves ListObjectsV2 and HEAD bucket in place of s3rver, whose versions break in ways clients notice:
 * on Node 17+ every truncated V2 listing fails with 500 (its continuation token uses DES, which OpenSSL 3
 * dropped), pages come out of key order and skip keys, `encoding-type=url` is ignored (minio then
 * decodes "+" to a space and throws on "%"), and HEAD bucket reads up to 1000 objects' metadata.
 */
export function listObjectsV2Middleware(store: S3rverStore): S3Middleware {
  return async function listObjectsV2(ctx, next) {
    const bucket = BUCKET_PATH.exec(ctx.path)?.[1];
    if (bucket === undefined) return next();
    if (ctx.method === 'HEAD' && ctx.querystring === '') return headBucket(ctx, store, bucket);
    if (ctx.method === 'GET' && single(ctx.query['list-type']) === '2') return listObjects(ctx, store, bucket);
    return next();
  };
}

async function headBucket(ctx: S3Context, store: S3rverStore, bucket: string): Promise<void> {
  if (!(await store.getBucket(bucket))) return respondWithS3Error(ctx, 404, 'NoSuchBucket', 'The specified bucket does not exist');
  ctx.status = 200;
}

async function listObjects(ctx: S3Context, store: S3rverStore, bucket: string): Promise<void> {
  if (!(await store.getBucket(bucket))) return respondWithS3Error(ctx, 404, 'NoSuchBucket', 'The specified bucket does not exist');
  const prefix = single(ctx.query['prefix']) ?? '';
  const delimiter = single(ctx.query['delimiter']) ?? '';
  const startAfter = single(ctx.query['start-after']) ?? '';
  const token = single(ctx.query['continuation-token']);
  const maxKeysText = single(ctx.query['max-keys']) ?? String(MAX_KEYS_LIMIT);
  const urlEncoded = single(ctx.query['encoding-type']) === 'url';

  if (!/^\d+$/.test(maxKeysText)) return respondWithS3Error(ctx, 400, 'InvalidArgument', 'Provided max-keys not an integer or within integer range');
  let continueAfter: ListingPosition | undefined;
  if (token) {
    continueAfter = decodeContinuationToken(token);
    if (!continueAfter) return respondWithS3Error(ctx, 400, 'InvalidArgument', 'The continuation token provided is incorrect');
  }

  const maxKeys = Math.min(Number(maxKeysText), MAX_KEYS_LIMIT);
  const sortedKeys = await listStoredKeys(join(store.rootDirectory, bucket), prefix);
  const selection = selectListObjectsV2(sortedKeys, { prefix, delimiter, startAfter, continueAfter, maxKeys });
  const contents = await Promise.all(selection.keys.map((key) => describeObject(store, bucket, key)));
  const encode = (text: string) => (urlEncoded ? encodeURIComponent(text) : text);

  // Field names and order follow S3's ListBucketResult; s3rver's encoder renders the object as XML.
  ctx.body = {
    ListBucketResult: {
      '@': { xmlns: 'http://s3.amazonaws.com/doc/2006-03-01/' },
      Name: bucket,
      Prefix: encode(prefix),
      StartAfter: token || !startAfter ? undefined : encode(startAfter),
      ContinuationToken: token || undefined,
      NextContinuationToken: selection.next ? encodeContinuationToken(selection.next) : undefined,
      KeyCount: selection.keys.length + selection.commonPrefixes.length,
      MaxKeys: maxKeys,
      Delimiter: delimiter ? encode(delimiter) : undefined,
      EncodingType: urlEncoded ? 'url' : undefined,
      IsTruncated: selection.isTruncated,
      Contents: contents.filter((object) => object !== undefined).map((object) => ({ ...object, Key: encode(object.Key) })),
      CommonPrefixes: selection.commonPrefixes.map((commonPrefix) => ({ Prefix: encode(commonPrefix) })),
    },
  };
}

interface ListedObject {
  Key: string;
  LastModified: string;
  ETag: string;
  Size: number;
  StorageClass: 'STANDARD';
}

/** undefined when the object was deleted between the directory walk and this read. */
async function describeObject(store: S3rverStore, bucket: string, key: string): Promise<ListedObject | undefined> {
  try {
    const metadata = await store.getMetadata(bucket, key);
    return {
      Key: key,
      LastModified: new Date(String(metadata['last-modified'])).toISOString(),
      ETag: String(metadata['etag']),
      Size: Number(metadata['content-length']),
      StorageClass: 'STANDARD',
    };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
