import type { Readable } from 'node:stream';
import { buffer as readWhole } from 'node:stream/consumers';
import type { BucketItem, Client } from 'minio';
import { collectPage, MAX_LIST_LIMIT, type ListingEntry } from './list-page';
import { createMinioClient, type S3Connection } from './minio-client.factory';
import { minioPartSink } from './minio-part-sink';
import { bodyParts } from './put-body';
import { MIN_PART_SIZE, uploadInParts } from './multipart-upload';
import { validateDelimiter, validateObjectKey, validatePrefix } from './object-key';
import { ObjectNotFoundError, ObjectSizeMismatchError, ObjectStoreUnavailableError, s3ErrorCode } from './object-store.errors';

export interface ObjectStoreOptions extends S3Connection {
  bucket: string;
  /** Size of the parts a streamed upload is cut into; at least 5 MiB (S3's minimum). Default 8 MiB. */
  partSizeBytes?: number;
}

export interface PutObjectOptions {
  /** Default application/octet-stream. */
  contentType?: string;
  /** When known, the upload is refused (nothing stored) if the body turns out to be a different length. */
  size?: number;
}

export interface ObjectStat {
  size: number;
  etag: string;
  lastModified: Date;
  contentType: string;
}

export interface ListPageRequest {
  /** Only keys under this prefix; '' lists the whole bucket. */
  prefix?: string;
  /** Keys are grouped into folders at this separator; '' lists every key under the prefix. Default '/'. */
  delimiter?: string;
  /** Resume after this key or folder: a previous page's nextKey. */
  startAfter?: string;
  /** 1..1000 files and folders together. */
  limit: number;
}

export interface ListedFile {
  key: string;
  size: number;
  lastModified: Date;
}

export interface ListPage {
  files: ListedFile[];
  /** Folder prefixes, each ending with the delimiter. */
  folders: string[];
  /** Pass as startAfter to get the next page; null when this page is the last. */
  nextKey: string | null;
}

/** The object storage every service and worker uses; one bucket, keys validated before any request. */
export interface ObjectStore {
  readonly bucket: string;
  /** Creates the bucket if missing; safe to race with other processes doing the same. */
  ensureBucket(): Promise<void>;
  /**
   * A Readable body is streamed: read on demand in parts of partSizeBytes, so an upload holds at most
   * two parts in memory whatever its size. Resolves with the number of bytes stored.
   */
  putObject(key: string, body: Buffer | Readable, options?: PutObjectOptions): Promise<{ size: number }>;
  /** Rejects with ObjectNotFoundError for a missing key. With `range`, only `length` bytes from `offset` (fewer at the end). */
  getObject(key: string, range?: { offset: number; length: number }): Promise<Readable>;
  getObjectBuffer(key: string): Promise<Buffer>;
  /** Up to `length` bytes from `offset` (fewer at the end of the object). */
  getObjectRange(key: string, offset: number, length: number): Promise<Buffer>;
  /** null when the key does not exist. */
  statObject(key: string): Promise<ObjectStat | null>;
  listPage(request: ListPageRequest): Promise<ListPage>;
  /** Succeeds when the key is already gone. */
  deleteObject(key: string): Promise<void>;
  /** Deletes every key under a non-empty prefix; returns how many were deleted. */
  deletePrefix(prefix: string): Promise<number>;
  /** For readiness probes: resolves when the bucket answers within the timeout, else ObjectStoreUnavailableError. */
  ping(timeoutMs?: number): Promise<void>;
}

const DEFAULT_PART_SIZE = 8 * 1024 * 1024;
const DEFAULT_PING_TIMEOUT_MS = 2000;
const DELETE_BATCH = 1000;

export function createObjectStore(options: ObjectStoreOptions): ObjectStore {
  const partSize = options.partSizeBytes ?? DEFAULT_PART_SIZE;
  if (!Number.isSafeInteger(partSize) || partSize < MIN_PART_SIZE) {
    throw new RangeError(`partSizeBytes must be an integer of at least ${MIN_PART_SIZE} (5 MiB), got ${partSize}`);
  }
  return new MinioObjectStore(createMinioClient(options), options.bucket, options.region ?? 'us-east-1', partSize);
}

class MinioObjectStore implements ObjectStore {
  constructor(
    private readonly client: Client,
    readonly bucket: string,
    private readonly region: string,
    private readonly partSize: number,
  ) {}

  async ensureBucket(): Promise<void> {
    if (await this.client.bucketExists(this.bucket)) return;
    try {
      await this.client.makeBucket(this.bucket, this.region);
    } catch (error) {
      // Another replica created it between our check and our create.
      const code = s3ErrorCode(error);
      if (code !== 'BucketAlreadyOwnedByYou' && code !== 'BucketAlreadyExists') throw error;
      if (!(await this.client.bucketExists(this.bucket))) throw error;
    }
  }

  async putObject(key: string, body: Buffer | Readable, options: PutObjectOptions = {}): Promise<{ size: number }> {
    const { contentType = 'application/octet-stream', size } = options;
    validateObjectKey(key);
    if (size !== undefined && (!Number.isSafeInteger(size) || size < 0)) throw new RangeError(`size must be a non-negative integer, got ${size}`);
    return uploadInParts(bodyParts(body, this.partSize, size), minioPartSink(this.client, this.bucket, key, contentType), {
      expectedSize: size,
      onSizeMismatch: (expected, actual) => new ObjectSizeMismatchError(key, expected, actual),
    });
  }

  async getObject(key: string, range?: { offset: number; length: number }): Promise<Readable> {
    validateObjectKey(key);
    try {
      return range ? await this.client.getPartialObject(this.bucket, key, range.offset, range.length) : await this.client.getObject(this.bucket, key);
    } catch (error) {
      if (isNotFound(error)) throw new ObjectNotFoundError(key);
      throw error;
    }
  }

  async getObjectBuffer(key: string): Promise<Buffer> {
    return readWhole(await this.getObject(key));
  }

  async getObjectRange(key: string, offset: number, length: number): Promise<Buffer> {
    validateObjectKey(key);
    try {
      return await readWhole(await this.client.getPartialObject(this.bucket, key, offset, length));
    } catch (error) {
      if (isNotFound(error)) throw new ObjectNotFoundError(key);
      throw error;
    }
  }

  async statObject(key: string): Promise<ObjectStat | null> {
    validateObjectKey(key);
    try {
      const stat = await this.client.statObject(this.bucket, key);
      const contentType = stat.metaData['content-type'];
      return {
        size: stat.size,
        etag: stat.etag,
        lastModified: stat.lastModified,
        contentType: typeof contentType === 'string' ? contentType : 'application/octet-stream',
      };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async listPage({ prefix = '', delimiter = '/', startAfter, limit }: ListPageRequest): Promise<ListPage> {
    validatePrefix(prefix, { allowEmpty: true });
    if (startAfter !== undefined) validateObjectKey(startAfter);
    validateDelimiter(delimiter);
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
      throw new RangeError(`limit must be an integer from 1 to ${MAX_LIST_LIMIT}, got ${limit}`);
    }
    const fetch = async (after: string, maxKeys: number) => {
      const result = await this.client.listObjectsV2Query(this.bucket, prefix, '', delimiter, maxKeys, after);
      return { entries: result.objects.map(toEntry), isTruncated: result.isTruncated };
    };
    const { entries, nextKey } = await collectPage(fetch, startAfter ?? '', limit);
    const files: ListedFile[] = [];
    const folders: string[] = [];
    for (const entry of entries) {
      if (entry.kind === 'folder') folders.push(entry.key);
      else files.push({ key: entry.key, size: entry.size, lastModified: entry.lastModified });
    }
    return { files, folders, nextKey };
  }

  async deleteObject(key: string): Promise<void> {
    validateObjectKey(key);
    await this.client.removeObject(this.bucket, key);
  }

  async deletePrefix(prefix: string): Promise<number> {
    validatePrefix(prefix, { allowEmpty: false });
    let deleted = 0;
    let after = '';
    for (;;) {
      const page = await this.client.listObjectsV2Query(this.bucket, prefix, '', '', DELETE_BATCH, after);
      const keys = page.objects.flatMap((item) => (item.name === undefined ? [] : [item.name]));
      if (keys.length > 0) {
        const failures = (await this.client.removeObjects(this.bucket, keys)).filter(Boolean);
        if (failures.length > 0) {
          throw new Error(`deleting under ${JSON.stringify(prefix)}: ${failures.length} of ${keys.length} keys could not be deleted`);
        }
        deleted += keys.length;
        after = keys[keys.length - 1];
      }
      if (!page.isTruncated || keys.length === 0) return deleted;
    }
  }

  async ping(timeoutMs = DEFAULT_PING_TIMEOUT_MS): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ObjectStoreUnavailableError(`object store did not answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      const exists = await Promise.race([this.client.bucketExists(this.bucket), timeout]);
      if (!exists) throw new ObjectStoreUnavailableError(`bucket ${JSON.stringify(this.bucket)} does not exist`);
    } catch (error) {
      if (error instanceof ObjectStoreUnavailableError) throw error;
      throw new ObjectStoreUnavailableError(`object store unreachable: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }
}

function toEntry(item: BucketItem): ListingEntry {
  if (item.prefix !== undefined) return { kind: 'folder', key: item.prefix };
  return { kind: 'file', key: item.name, size: Number(item.size), lastModified: item.lastModified };
}

/** HEAD responses carry no body, so minio reports a missing key as "NotFound" there and "NoSuchKey" elsewhere. */
function isNotFound(error: unknown): boolean {
  const code = s3ErrorCode(error);
  return code === 'NoSuchKey' || code === 'NotFound';
}

/** The S3_* settings every process that touches the platform's object store reads (s3Fields of @platform/config). */
export interface ObjectStoreSettings {
  S3_ENDPOINT: string;
  S3_ACCESS_KEY: string;
  S3_SECRET_KEY: string;
  S3_BUCKET: string;
  S3_REGION: string;
}

/** The platform's own object store, as its configuration names it. */
export function objectStoreFromConfig(config: ObjectStoreSettings): ObjectStore {
  return createObjectStore({
    endpoint: config.S3_ENDPOINT,
    accessKey: config.S3_ACCESS_KEY,
    secretKey: config.S3_SECRET_KEY,
    bucket: config.S3_BUCKET,
    region: config.S3_REGION,
  });
}
