import { CLOUD_SERVICE_TYPES, STORAGE_JOB_KINDS, STORAGE_LIMITS, type CloudCopyJob } from '@contracts/domain';
import { AppError, blankOrTooLong, type FieldError, notOneOf, problem } from '@platform/errors';
import { CustomerEndpointRefused, openCustomerBucket, s3CodeOf } from '@platform/jobs';
import { withTransaction } from '@platform/mysql';
import type { SecretBox } from '@platform/secrets';
import { recordChange, type EventOutbox } from '@platform/service';
import type { Knex } from 'knex';
import type { QueueService } from '../queues/queue.service';
import { assertNoErrors, fileNameErrors, pathErrors } from '../asset-library/path-rules';
import { rootUrl, type CloudCredentials, type CloudServiceInput, type CloudServiceRecord } from './cloud-service.model';
import type { CloudServiceRepository } from './cloud-service.repository';

export const CLOUD_NAME_MAX = 200;
export const CLOUD_KEY_MAX = 256;
/** S3's bucket naming rules (3 to 63 lowercase letters, digits, dots and hyphens). */
const BUCKET_PATTERN = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const REGION_PATTERN = /^[a-z0-9-]{0,64}$/;
/** Most entries one listing answers; the customer's folder may hold more. */
export const CLOUD_LIST_MAX = 1_000;
/** Under the gateway's gRPC deadline, so a silent endpoint is answered as the customer's, not as our timeout. */
const CHECK_TIMEOUT_MS = 4_000;

const serviceNotFound = (id: number) => problem('CLOUD_SERVICE_NOT_FOUND', `Cloud service ${id} was not found.`);

export interface CloudListing {
  files: { name: string; date: string; size: number }[];
  folders: string[];
  url: string;
  path: string;
}

/** Customers' buckets registered to an account: the credentials are proven at create and sealed at rest. */
export class CloudServiceService {
  constructor(
    private readonly knex: Knex,
    private readonly events: EventOutbox,
    private readonly repository: CloudServiceRepository,
    private readonly box: SecretBox,
    private readonly queues: QueueService,
    private readonly allowlist: readonly string[],
  ) {}

  list(accountId: number): Promise<CloudServiceRecord[]> {
    return this.repository.list(accountId);
  }

  async create(accountId: number, input: CloudServiceInput): Promise<CloudServiceRecord> {
    const slash = input.rootDir.indexOf('/');
    const bucket = slash < 0 ? input.rootDir : input.rootDir.slice(0, slash);
    const prefix = slash < 0 ? '' : input.rootDir.slice(slash + 1).replace(/\/+$/, '');
    assertNoErrors([
      ...blankOrTooLong('/name', input.name, CLOUD_NAME_MAX),
      ...notOneOf('/serviceType', input.serviceType, CLOUD_SERVICE_TYPES),
      ...(BUCKET_PATTERN.test(bucket)
        ? pathErrors({ pointer: '/rootDir' }, prefix)
        : [
            {
              pointer: '/rootDir',
              code: 'INVALID_BUCKET' as const,
              detail: 'rootDir must start with a bucket name (3 to 63 lowercase letters, digits, dots and hyphens).',
            },
          ]),
      ...blankOrTooLong('/accessKey', input.accessKey, CLOUD_KEY_MAX),
      ...blankOrTooLong('/secreteKey', input.secretKey, CLOUD_KEY_MAX),
      ...(REGION_PATTERN.test(input.region)
        ? []
        : [{ pointer: '/region', code: 'INVALID_FORMAT' as const, detail: 'region must be lowercase letters, digits and hyphens.' }]),
    ]);
    const record = {
      accountId,
      name: input.name.trim(),
      serviceType: input.serviceType,
      bucket,
      prefix,
      endpoint: input.endpoint,
      region: input.region || 'us-east-1',
    };
    await this.checkAccess(record, { accessKey: input.accessKey, secretKey: input.secretKey });
    const sealedCredentials = this.box.seal(JSON.stringify({ accessKey: input.accessKey, secretKey: input.secretKey } satisfies CloudCredentials));
    return withTransaction(this.knex, async (trx) => {
      const id = await this.repository.insert(trx, { ...record, sealedCredentials });
      const created = { ...record, id, sealedCredentials };
      await recordChange(trx, this.events, { resourceType: 'cloud-service', resourceId: id, action: 'create', accountId, after: created });
      return created;
    });
  }

  async rename(accountId: number, id: number, name: string): Promise<void> {
    assertNoErrors(blankOrTooLong('/name', name, CLOUD_NAME_MAX));
    await withTransaction(this.knex, async (trx) => {
      const before = await this.repository.findForUpdate(trx, accountId, id);
      if (!before) throw serviceNotFound(id);
      await this.repository.rename(trx, accountId, id, name.trim());
      await recordChange(trx, this.events, {
        resourceType: 'cloud-service',
        resourceId: id,
        action: 'update',
        accountId,
        before,
        after: { ...before, name: name.trim() },
      });
    });
  }

  async delete(accountId: number, id: number): Promise<void> {
    await withTransaction(this.knex, async (trx) => {
      const before = await this.repository.findForUpdate(trx, accountId, id);
      if (!before) throw serviceNotFound(id);
      await this.repository.delete(trx, accountId, id);
      await recordChange(trx, this.events, { resourceType: 'cloud-service', resourceId: id, action: 'delete', accountId, before });
    });
  }

  /** One level of the service's folder: its files and sub-folders, at most CLOUD_LIST_MAX together. */
  async listFiles(accountId: number, id: number, subPath: string): Promise<CloudListing> {
    assertNoErrors(pathErrors({ parameter: 'path' }, subPath));
    const service = await this.get(accountId, id);
    const path = subPath.replace(/\/+$/, '');
    const folderPrefix = [service.prefix, path].filter(Boolean).join('/');
    const listPrefix = folderPrefix ? `${folderPrefix}/` : '';
    const client = this.client(service);
    const files: CloudListing['files'] = [];
    const folders: string[] = [];
    try {
      let after = '';
      for (;;) {
        const page = await withTimeout(client.listObjectsV2Query(service.bucket, listPrefix, '', '/', Math.min(1000, CLOUD_LIST_MAX), after), CHECK_TIMEOUT_MS);
        for (const item of page.objects) {
          if (item.prefix !== undefined) folders.push(item.prefix.slice(listPrefix.length).replace(/\/$/, ''));
          else if (item.name !== undefined && item.name !== listPrefix) {
            files.push({ name: item.name.slice(listPrefix.length), date: new Date(item.lastModified).toISOString(), size: Number(item.size) });
          }
        }
        const last = page.objects[page.objects.length - 1];
        if (!page.isTruncated || files.length + folders.length >= CLOUD_LIST_MAX || !last) break;
        after = last.prefix ?? last.name ?? '';
      }
    } catch (error) {
      throw sourceFailure(error);
    }
    return { files: files.slice(0, CLOUD_LIST_MAX), folders: folders.slice(0, CLOUD_LIST_MAX - files.length), url: rootUrl(service, path), path };
  }

  /** Queues the copy; names are checked here so nothing the library refuses is ever fetched. */
  async copy(accountId: number, id: number, request: { path: string; files: string[]; folders: string[] }): Promise<string> {
    const errors: FieldError[] = [...pathErrors({ pointer: '/path' }, request.path)];
    request.files.forEach((name, i) => errors.push(...fileNameErrors({ pointer: `/files/${i}` }, name)));
    request.folders.forEach((name, i) => errors.push(...pathErrors({ pointer: `/folders/${i}` }, name)));
    if (request.files.length + request.folders.length === 0) {
      errors.push({ pointer: '/files', code: 'REQUIRED', detail: 'Name at least one file or folder to copy.' });
    }
    if (request.files.length + request.folders.length > STORAGE_LIMITS.copyMaxItems) {
      errors.push({ pointer: '/files', code: 'TOO_MANY_ITEMS', detail: `At most ${STORAGE_LIMITS.copyMaxItems} files and folders together.` });
    }
    assertNoErrors(errors);
    const service = await this.get(accountId, id);
    const path = request.path.replace(/\/+$/, '');
    const job: CloudCopyJob = {
      source: { endpoint: service.endpoint, region: service.region, bucket: service.bucket, sealedCredentials: service.sealedCredentials.toString('base64') },
      sourcePrefix: [service.prefix, path].filter(Boolean).join('/'),
      files: request.files,
      folders: request.folders.map((f) => f.replace(/\/+$/, '')),
    };
    // The trail keeps what was asked for; the job's source (sealed credentials included) stays out of it.
    return this.queues.enqueue(STORAGE_JOB_KINDS.cloudCopy, accountId, job, {
      resourceType: 'cloud-copy',
      after: { cloudServiceId: id, path, files: job.files, folders: job.folders },
    });
  }

  private async get(accountId: number, id: number): Promise<CloudServiceRecord> {
    const service = await this.repository.find(accountId, id);
    if (!service) throw serviceNotFound(id);
    return service;
  }

  private client(service: Pick<CloudServiceRecord, 'endpoint' | 'region' | 'bucket' | 'sealedCredentials'>, credentials?: CloudCredentials) {
    const { accessKey, secretKey } = credentials ?? (JSON.parse(this.box.open(service.sealedCredentials)) as CloudCredentials);
    try {
      return openCustomerBucket({ endpoint: service.endpoint, region: service.region, bucket: service.bucket, accessKey, secretKey }, this.allowlist);
    } catch (error) {
      throw sourceFailure(error);
    }
  }

  /** A wrong key, a missing bucket or a refused endpoint is the caller's to fix: a 4xx naming the field. */
  private async checkAccess(service: Pick<CloudServiceRecord, 'endpoint' | 'region' | 'bucket'>, credentials: CloudCredentials): Promise<void> {
    const client = this.client({ ...service, sealedCredentials: Buffer.alloc(0) }, credentials);
    let exists: boolean;
    try {
      exists = await withTimeout(client.bucketExists(service.bucket), CHECK_TIMEOUT_MS);
      // HEAD bucket cannot tell a wrong secret from a missing bucket on every server; a listing can.
      if (exists) await withTimeout(client.listObjectsV2Query(service.bucket, '', '', '/', 1, ''), CHECK_TIMEOUT_MS);
    } catch (error) {
      throw sourceFailure(error);
    }
    if (!exists) {
      throw problem('CLOUD_BUCKET_NOT_FOUND', `The bucket ${service.bucket} does not exist or these credentials cannot see it.`, {
        errors: [{ pointer: '/rootDir', code: 'CLOUD_BUCKET_NOT_FOUND', detail: `Bucket ${service.bucket} was not found.` }],
      });
    }
  }
}

const CREDENTIAL_CODES = new Set([
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'AccessDenied',
  'InvalidToken',
  'ExpiredToken',
  'AuthorizationHeaderMalformed',
]);

/** A failure of the customer's side, without anything of the request (never a key) in its text. */
function sourceFailure(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof CustomerEndpointRefused) {
    return problem('CLOUD_ENDPOINT_NOT_ALLOWED', error.message, {
      errors: [{ pointer: '/endpoint', code: 'CLOUD_ENDPOINT_NOT_ALLOWED', detail: error.message }],
    });
  }
  const code = s3CodeOf(error);
  if (code && CREDENTIAL_CODES.has(code)) {
    return problem('CLOUD_CREDENTIALS_REJECTED', `The bucket refused these credentials (${code}).`, {
      errors: [{ pointer: '/accessKey', code: 'CLOUD_CREDENTIALS_REJECTED', detail: 'The access key or secret key was refused by the bucket.' }],
    });
  }
  if (code === 'NoSuchBucket') {
    return problem('CLOUD_BUCKET_NOT_FOUND', 'The bucket does not exist.', {
      errors: [{ pointer: '/rootDir', code: 'CLOUD_BUCKET_NOT_FOUND', detail: 'The bucket was not found.' }],
    });
  }
  // The customer's endpoint is down, unknown or speaks no S3: theirs to fix, so a 424 naming the endpoint.
  return problem('CLOUD_SOURCE_FAILED', `The customer's storage did not answer as expected${code ? ` (${code})` : ''}.`, {
    errors: [{ pointer: '/endpoint', code: 'CLOUD_SOURCE_FAILED', detail: 'The storage endpoint could not be used.' }],
  });
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(problem('CLOUD_SOURCE_TIMEOUT', `The customer's storage did not answer within ${ms} ms.`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
