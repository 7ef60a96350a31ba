import type { Request } from 'express';
import { Type } from '@sinclair/typebox';
import {
  accountFileUrl,
  ASSET_ALLOWED_EXTENSIONS,
  ASSET_PATH_MAX,
  CLOUD_SERVICE_TYPES,
  DEFAULT_PAGE_LIMIT,
  MAX_PAGE_LIMIT,
  PERMISSIONS,
  STORAGE_LIBRARY_ACCESS,
  STORAGE_LIMITS,
} from '@contracts/domain';
import { AccountId, BoundedString, Idx, Int32, PathParams, StringEnum } from './common.schemas';
import { defineRoute, type RouteContext } from './route.types';

const TAG = 'storage';

/** Path and file-name rules, stated once for every operation that takes a path. */
const PATH_RULES =
  'Paths and file names must not contain a null byte or ASCII control characters (rule 1), DEL, C1 controls or U+00A0 to U+00FF (rule 2), ' +
  `".." or "./" (rule 3); must not start with "/" (rule 4) nor contain "//" (rule 5); at most ${ASSET_PATH_MAX} characters (rule 6); ` +
  `a file extension must be one of ${ASSET_ALLOWED_EXTENSIONS.join(', ')} (rule 7). A violation answers 400 naming the rule.`;

const AssetPath = (description: string) => BoundedString(ASSET_PATH_MAX, { description });
const QueueIdParam = BoundedString(64, { minLength: 1, pattern: '^[A-Za-z0-9_-]+$', description: 'Queue id returned by the operation that queued the job' });
const QueuePath = PathParams({ queueId: QueueIdParam });
const AccountPath = PathParams({ accountId: AccountId });
const ServicePath = PathParams({ accountId: AccountId, serviceId: Idx });

/** Where library files are served: PUBLIC_BASE_URL when set, else the request's own origin. */
export const FILES_PATH = '/files';

export function cdnUrl(base: string, accountId: number, path: string): string {
  return accountFileUrl(base, accountId, path);
}

/**
 * The API's public base (PUBLIC_BASE_URL, else the request's origin), read off a page link, which
 * already applies it: the link is that base followed by the request's own path.
 */
export function publicBase(req: Request, links: RouteContext<unknown, unknown, unknown>['links']): string {
  const here = new URL(links({ offset: 0, limit: 1, total: 2 }).next as string);
  const requestPath = new URL(req.originalUrl, 'http://x').pathname;
  return `${here.origin}${here.pathname.slice(0, here.pathname.length - requestPath.length)}`;
}

/** Bytes as the library lists them: a number with a unit. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(2)} ${units[unit]}`;
}

const QueueSummary = Type.Object({ message: Type.String(), status: Type.String({ description: 'Queued, Processing, Completed or Failed' }) });
const QueueDetail = Type.Object({
  id: Type.String(),
  message: Type.String(),
  status: Type.String({ description: 'Queued, Processing, Completed or Failed' }),
  totalItems: Type.Integer(),
  totalProcessed: Type.Integer(),
});
const QueueIdBody = Type.Object({ queueId: Type.String() });
const AssetFile = Type.Object({
  cdnUrl: Type.String({ format: 'uri', description: 'A plain GET returns exactly the stored bytes.' }),
  date: Type.String({ format: 'date-time', description: 'Last modified, ISO 8601 UTC.' }),
  name: Type.String(),
  size: Type.String({ description: 'Size with a unit, e.g. "12.50 KB".' }),
});
const CloudService = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  serviceType: StringEnum(CLOUD_SERVICE_TYPES),
  rootDir: Type.String({ description: 's3://<bucket>/<prefix>' }),
});

const EXAMPLE_QUEUE_ID = '0b8f4c1e-4d7a-4e39-9a55-5b2f7f3f1a10';
const EXAMPLE_CLOUD = { id: 7, name: 'Brand assets', serviceType: 'objstore', rootDir: 's3://brand-bucket/campaigns/2026' };

// Copy and rename share a path; the interface names them "/accounts/:accountId/cloud..." without /v2.
const CLOUD = '/accounts/:accountId/cloud';

export const storageRoutes = [
  defineRoute({
    operationId: 'getQueueStatus',
    method: 'get',
    path: '/v2/queues/:queueId/status',
    tag: TAG,
    summary: 'Detailed status of a queued job',
    description:
      'Any job kind (upload, zip extraction, cloud copy, feed ingest, export). Only an account that owns the queue can read it; any other id answers 404.',
    permission: STORAGE_LIBRARY_ACCESS.getQueue,
    scope: 'none',
    params: QueuePath,
    success: { status: 200, description: 'The queue', schema: QueueDetail },
    problems: ['QUEUE_NOT_FOUND'],
    example: {
      params: { queueId: EXAMPLE_QUEUE_ID },
      response: { id: EXAMPLE_QUEUE_ID, message: 'Extracted 12 files from pack.zip.', status: 'Completed', totalItems: 12, totalProcessed: 12 },
    },
    async handle({ params, backends }) {
      const queue = await backends.storageLibrary.getQueue({ queueId: params.queueId });
      return { body: { id: queue.id, message: queue.message, status: queue.status, totalItems: queue.totalItems, totalProcessed: queue.totalProcessed } };
    },
  }),

  defineRoute({
    operationId: 'getQueue',
    method: 'get',
    path: '/v2/queues/:queueId',
    tag: TAG,
    summary: 'Summary status of a queued job',
    description: 'Only an account that owns the queue can read it; any other id answers 404.',
    permission: STORAGE_LIBRARY_ACCESS.getQueue,
    scope: 'none',
    params: QueuePath,
    success: { status: 200, description: 'The queue', schema: QueueSummary },
    problems: ['QUEUE_NOT_FOUND'],
    example: { params: { queueId: EXAMPLE_QUEUE_ID }, response: { message: 'Queued', status: 'Queued' } },
    async handle({ params, backends }) {
      const queue = await backends.storageLibrary.getQueue({ queueId: params.queueId });
      return { body: { message: queue.message, status: queue.status } };
    },
  }),

  defineRoute({
    operationId: 'listAssetLibrary',
    method: 'get',
    path: '/v2/accounts/:accountId/asset-library',
    tag: TAG,
    summary: 'List the files and folders of the account asset library',
    description: `One folder level under prefix, in key order, limit files and folders together per page; pass nextKey back for the next page ("" on the last). ${PATH_RULES}`,
    permission: STORAGE_LIBRARY_ACCESS.listAssets,
    scope: { account: 'accountId' },
    params: AccountPath,
    query: Type.Object(
      {
        prefix: Type.Optional(AssetPath('Folder to list; the root when absent.')),
        limit: Int32({ minimum: 1, maximum: MAX_PAGE_LIMIT, default: DEFAULT_PAGE_LIMIT, description: `Page size, at most ${MAX_PAGE_LIMIT}.` }),
        nextKey: Type.Optional(BoundedString(1024, { description: 'nextKey of the previous page.' })),
      },
      { additionalProperties: false },
    ),
    success: {
      status: 200,
      description: 'A page of the folder',
      schema: Type.Object({ files: Type.Array(AssetFile), folders: Type.Array(Type.String()), nextKey: Type.String(), path: Type.String() }),
    },
    problems: ['OBJECT_STORE_UNAVAILABLE'],
    example: {
      params: { accountId: 1001 },
      query: { prefix: 'banners', limit: 25 },
      response: {
        files: [
          { cdnUrl: 'https://api.example.com/files/accounts/1001/banners/logo.png', date: '2026-03-01T08:00:00.000Z', name: 'logo.png', size: '12.50 KB' },
        ],
        folders: ['spring'],
        nextKey: '',
        path: 'banners',
      },
    },
    async handle({ params, query, backends, req, links }) {
      const page = await backends.storageLibrary.listAssets({
        accountId: params.accountId,
        prefix: query.prefix ?? '',
        limit: query.limit,
        nextKey: query.nextKey ?? '',
      });
      const base = publicBase(req, links);
      return {
        body: {
          files: page.files.map((f) => ({ cdnUrl: cdnUrl(base, params.accountId, f.path), date: f.date, name: f.name, size: formatSize(f.sizeBytes) })),
          folders: page.folders,
          nextKey: page.nextKey,
          path: page.path,
        },
      };
    },
  }),

  defineRoute({
    operationId: 'uploadAsset',
    method: 'post',
    path: '/v2/accounts/:accountId/asset-library',
    tag: TAG,
    summary: 'Upload a file or a zip archive into the asset library',
    description:
      'A multipart/form-data body with the part `file` (required, one file) and the field `path` (optional target folder). The file is streamed to storage, ' +
      `at most ${STORAGE_LIMITS.uploadMaxBytes} bytes (larger: 413, nothing kept), and placed by the storage worker; poll the returned queue. ` +
      `A zip is extracted into the folder after every entry is checked (the path rules, no symlinks, at most ${STORAGE_LIMITS.zipMaxEntries} entries, ` +
      `${STORAGE_LIMITS.zipMaxTotalBytes} bytes extracted and a compression ratio of ${STORAGE_LIMITS.zipMaxCompressionRatio}); any breach fails the queue with the reason and extracts nothing. ` +
      PATH_RULES,
    permission: STORAGE_LIBRARY_ACCESS.startUpload,
    scope: { account: 'accountId' },
    params: AccountPath,
    multipartBody: Type.Object(
      {
        file: Type.String({
          format: 'binary',
          maxLength: STORAGE_LIMITS.uploadMaxBytes,
          description: `The file or zip archive (at most ${STORAGE_LIMITS.uploadMaxBytes} bytes); its file name obeys the path and extension rules.`,
        }),
        path: Type.Optional(BoundedString(ASSET_PATH_MAX, { description: 'Target folder in the library; the path rules apply.' })),
      },
      {
        required: ['file'],
        additionalProperties: false,
        description: 'Parts other than file and path are not part of the contract (the gateway ignores them).',
      },
    ),
    success: { status: 200, description: 'Queued', schema: QueueIdBody },
    problems: ['UPLOAD_ABORTED', 'INVALID_STAGING_KEY', 'UPLOAD_NOT_STAGED', 'UPLOAD_TOO_LARGE', 'OBJECT_STORE_UNAVAILABLE', 'JOB_LIMIT_REACHED'],
    example: { params: { accountId: 1001 }, response: { queueId: EXAMPLE_QUEUE_ID } },
    async handle({ params, req, backends, local }) {
      const staged = await local.uploads.stage(req, params.accountId);
      try {
        const { queueId } = await backends.storageLibrary.startUpload({ accountId: params.accountId, ...staged });
        return { body: { queueId } };
      } catch (error) {
        await local.uploads.discard(staged);
        throw error;
      }
    },
  }),

  defineRoute({
    operationId: 'deleteAssets',
    method: 'delete',
    path: '/v2/accounts/:accountId/asset-library',
    tag: TAG,
    summary: 'Delete a file or a folder of the asset library',
    description: `deleteFile needs file (path optionally names its folder); deleteFolder needs path and deletes everything under it. ${PATH_RULES}`,
    permission: STORAGE_LIBRARY_ACCESS.deleteAssets,
    scope: { account: 'accountId' },
    params: AccountPath,
    query: Type.Object(
      {
        command: StringEnum(['deleteFile', 'deleteFolder'] as const),
        file: Type.Optional(AssetPath('File name, required for deleteFile.')),
        path: Type.Optional(AssetPath('Folder: required for deleteFolder; for deleteFile the folder of the file.')),
      },
      { additionalProperties: false },
    ),
    success: { status: 200, description: 'Deleted', schema: Type.Object({ msg: Type.String() }) },
    problems: ['ASSET_NOT_FOUND', 'ASSET_FOLDER_NOT_FOUND', 'OBJECT_STORE_UNAVAILABLE'],
    example: {
      params: { accountId: 1001 },
      query: { command: 'deleteFile', file: 'logo.png', path: 'banners' },
      response: { msg: 'File banners/logo.png deleted.' },
    },
    async handle({ params, query, backends }) {
      const result = await backends.storageLibrary.deleteAssets({
        accountId: params.accountId,
        command: query.command,
        file: query.file ?? '',
        path: query.path ?? '',
      });
      return { body: { msg: result.msg } };
    },
  }),

  defineRoute({
    operationId: 'listCloudServices',
    method: 'get',
    path: CLOUD,
    tag: TAG,
    summary: 'List the cloud storage services of the account',
    description: 'Credentials are never shown.',
    permission: STORAGE_LIBRARY_ACCESS.listCloudServices,
    scope: { account: 'accountId' },
    params: AccountPath,
    success: { status: 200, description: 'The services', schema: Type.Object({ services: Type.Array(CloudService) }) },
    example: { params: { accountId: 1001 }, response: { services: [EXAMPLE_CLOUD] } },
    async handle({ params, backends }) {
      const result = await backends.storageLibrary.listCloudServices({ accountId: params.accountId });
      return { body: { services: result.services } };
    },
  }),

  defineRoute({
    operationId: 'createCloudService',
    method: 'post',
    path: CLOUD,
    tag: TAG,
    summary: 'Register a cloud storage service (an S3-compatible bucket)',
    description:
      'The credentials are checked against the bucket first: a refused key answers 400 CLOUD_CREDENTIALS_REJECTED, a missing bucket 400 CLOUD_BUCKET_NOT_FOUND, ' +
      'an endpoint on a private or loopback address 400 CLOUD_ENDPOINT_NOT_ALLOWED, an unreachable or silent one 424 (CLOUD_SOURCE_FAILED, CLOUD_SOURCE_TIMEOUT). They are stored encrypted and never shown again. ' +
      'endpoint and region are extensions (an S3-compatible base URL, default AWS S3).',
    permission: STORAGE_LIBRARY_ACCESS.createCloudService,
    scope: { account: 'accountId' },
    params: AccountPath,
    body: Type.Object(
      {
        name: BoundedString(200, { minLength: 1 }),
        serviceType: StringEnum(CLOUD_SERVICE_TYPES),
        rootDir: BoundedString(64 + ASSET_PATH_MAX, { minLength: 1, description: '<bucket>/<prefix>' }),
        accessKey: BoundedString(256, { minLength: 1 }),
        secreteKey: BoundedString(256, { minLength: 1, description: 'The secret key (spelled so).' }),
        endpoint: Type.Optional(BoundedString(512, { format: 'uri', description: 'S3-compatible base URL; AWS S3 when absent.' })),
        region: Type.Optional(BoundedString(64, { pattern: '^[a-z0-9-]*$' })),
      },
      { additionalProperties: false },
    ),
    success: { status: 200, description: 'Registered', schema: CloudService },
    problems: ['CLOUD_BUCKET_NOT_FOUND', 'CLOUD_ENDPOINT_NOT_ALLOWED', 'CLOUD_CREDENTIALS_REJECTED', 'CLOUD_SOURCE_FAILED', 'CLOUD_SOURCE_TIMEOUT'],
    example: {
      params: { accountId: 1001 },
      request: { name: 'Brand assets', serviceType: 'objstore', rootDir: 'brand-bucket/campaigns/2026', accessKey: '<ACCESS_KEY>', secreteKey: '<SECRET_KEY>' },
      response: EXAMPLE_CLOUD,
    },
    async handle({ params, body, backends }) {
      const result = await backends.storageLibrary.createCloudService({
        accountId: params.accountId,
        name: body.name,
        serviceType: body.serviceType,
        rootDir: body.rootDir,
        accessKey: body.accessKey,
        secretKey: body.secreteKey,
        endpoint: body.endpoint ?? '',
        region: body.region ?? '',
      });
      return { body: result.service };
    },
  }),

  defineRoute({
    operationId: 'renameCloudService',
    method: 'put',
    path: `${CLOUD}/:serviceId`,
    tag: TAG,
    summary: 'Rename a cloud storage service',
    permission: STORAGE_LIBRARY_ACCESS.renameCloudService,
    scope: { account: 'accountId' },
    params: ServicePath,
    body: Type.Object({ name: BoundedString(200, { minLength: 1 }) }, { additionalProperties: false }),
    success: { status: 204, description: 'Renamed' },
    problems: ['CLOUD_SERVICE_NOT_FOUND'],
    example: { params: { accountId: 1001, serviceId: 7 }, request: { name: 'Brand assets (2026)' } },
    async handle({ params, body, backends }) {
      await backends.storageLibrary.renameCloudService({ accountId: params.accountId, serviceId: params.serviceId, name: body.name });
      return { status: 204 };
    },
  }),

  defineRoute({
    operationId: 'deleteCloudService',
    method: 'delete',
    path: `${CLOUD}/:serviceId`,
    tag: TAG,
    summary: 'Delete a cloud storage service',
    description: 'Files already copied into the asset library stay.',
    permission: STORAGE_LIBRARY_ACCESS.deleteCloudService,
    scope: { account: 'accountId' },
    params: ServicePath,
    success: { status: 204, description: 'Deleted' },
    problems: ['CLOUD_SERVICE_NOT_FOUND'],
    example: { params: { accountId: 1001, serviceId: 7 } },
    async handle({ params, backends }) {
      await backends.storageLibrary.deleteCloudService({ accountId: params.accountId, serviceId: params.serviceId });
      return { status: 204 };
    },
  }),

  defineRoute({
    operationId: 'listCloudFiles',
    method: 'get',
    path: `${CLOUD}/:serviceId`,
    tag: TAG,
    summary: 'List the files and folders of a cloud storage service',
    description: `One level under the service root and the optional sub-path; at most 1000 entries. ${PATH_RULES}`,
    permission: STORAGE_LIBRARY_ACCESS.listCloudFiles,
    scope: { account: 'accountId' },
    params: ServicePath,
    query: Type.Object({ path: Type.Optional(AssetPath('Sub-path under the service root.')) }, { additionalProperties: false }),
    success: {
      status: 200,
      description: 'The folder',
      schema: Type.Object({
        files: Type.Array(Type.Object({ name: Type.String(), date: Type.String({ format: 'date-time' }), size: Type.Integer({ description: 'Bytes' }) })),
        folders: Type.Array(Type.String()),
        url: Type.String({ description: 's3:// URL of the listed folder' }),
        path: Type.String(),
      }),
    },
    problems: [
      'CLOUD_SERVICE_NOT_FOUND',
      'CLOUD_BUCKET_NOT_FOUND',
      'CLOUD_ENDPOINT_NOT_ALLOWED',
      'CLOUD_CREDENTIALS_REJECTED',
      'CLOUD_SOURCE_FAILED',
      'CLOUD_SOURCE_TIMEOUT',
    ],
    example: {
      params: { accountId: 1001, serviceId: 7 },
      query: { path: 'spring' },
      response: {
        files: [{ name: 'hero.jpg', date: '2026-03-01T08:00:00.000Z', size: 48213 }],
        folders: ['logos'],
        url: 's3://brand-bucket/campaigns/2026/spring',
        path: 'spring',
      },
    },
    async handle({ params, query, backends }) {
      const result = await backends.storageLibrary.listCloudFiles({ accountId: params.accountId, serviceId: params.serviceId, path: query.path ?? '' });
      return { body: { files: result.files, folders: result.folders, url: result.url, path: result.path } };
    },
  }),

  defineRoute({
    operationId: 'copyFromCloud',
    method: 'post',
    path: `${CLOUD}/:serviceId`,
    tag: TAG,
    summary: 'Copy files and folders of a cloud storage service into the asset library',
    description:
      'files and folders are relative to path (under the service root); folders are copied recursively and land in the library under the same relative names. ' +
      `The storage worker streams each object; a file that fails is reported in the queue message and the rest go on. Needs ${PERMISSIONS.assetLibraryEdit} too. ${PATH_RULES}`,
    permission: STORAGE_LIBRARY_ACCESS.copyFromCloud,
    scope: { account: 'accountId' },
    params: ServicePath,
    body: Type.Object(
      {
        path: Type.Optional(AssetPath('Sub-directory of the service root the names are relative to.')),
        files: Type.Array(AssetPath('File name'), { maxItems: STORAGE_LIMITS.copyMaxItems }),
        folders: Type.Array(AssetPath('Folder name'), { maxItems: STORAGE_LIMITS.copyMaxItems }),
      },
      { additionalProperties: false },
    ),
    success: { status: 200, description: 'Queued', schema: QueueIdBody },
    problems: ['CLOUD_SERVICE_NOT_FOUND', 'JOB_LIMIT_REACHED'],
    example: {
      params: { accountId: 1001, serviceId: 7 },
      request: { path: 'spring', files: ['hero.jpg'], folders: ['logos'] },
      response: { queueId: EXAMPLE_QUEUE_ID },
    },
    async handle({ params, body, backends }) {
      const result = await backends.storageLibrary.copyFromCloud({
        accountId: params.accountId,
        serviceId: params.serviceId,
        path: body.path ?? '',
        files: body.files,
        folders: body.folders,
      });
      return { body: { queueId: result.queueId } };
    },
  }),
];
