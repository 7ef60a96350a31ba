import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { storageLibraryV1 as v1 } from '@contracts/proto';
import type { AppError } from '@platform/errors';
import { callUnary, createGrpcClient, Metadata, principalMetadata, type Principal } from '@platform/grpc';
import { createLogger } from '@platform/logging';
import { createObjectStore, startEmbeddedS3, type EmbeddedS3 } from '@platform/s3';
import { startGrpcService, type RunningGrpcService } from '@platform/service';
import { deletePrefixedStreams, dropPrefixedSchemas, uniquePrefix } from '@platform/testing';
import { loadStorageLibraryConfig } from './storage-library.config';
import { storageLibraryService } from './storage-library.module';

jest.setTimeout(60_000);

describe('storage-library peer FindLibraryFiles over gRPC (real MariaDB, NATS and S3)', () => {
  const prefix = uniquePrefix('slg');
  const principalKey = randomBytes(32);
  const logger = createLogger({ service: 'storage-library-test', level: 'silent' });
  // A caller of another service's operation: scoped to account 40, holding no asset-library permission.
  const principal: Principal = {
    keyId: 'k',
    orgId: 'acme',
    accountIds: [40],
    permissions: ['AssetSources_Edit'],
    org: { isRetailer: true, dimensionWhitelist: [] },
  };
  let s3: EmbeddedS3;
  let s3Dir: string;
  let module: RunningGrpcService;
  let client: v1.StorageLibraryServiceClient;

  const find = (request: v1.FindLibraryFilesRequest, metadata: Metadata = principalMetadata(principal, principalKey)) =>
    callUnary(client, client.findLibraryFiles, request, { metadata, deadlineMs: 5_000, target: 'storage-library' });
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error('expected a failure');
      },
      (e: AppError) => e,
    );

  beforeAll(async () => {
    s3Dir = await mkdtemp(join(tmpdir(), 'storage-library-grpc-'));
    s3 = await startEmbeddedS3({ port: 0, directory: s3Dir });
    const env = {
      MYSQL_SCHEMA_PREFIX: prefix,
      NATS_PREFIX: prefix,
      GRPC_PORT: '0',
      INTERNAL_AUTH_KEY: principalKey.toString('hex'),
      NODE_ENV: 'test' as const,
      S3_ENDPOINT: s3.endpoint,
      S3_BUCKET: 'library-grpc',
    };
    module = await startGrpcService(loadStorageLibraryConfig(env), logger, storageLibraryService);
    client = createGrpcClient(v1.StorageLibraryServiceClient, `127.0.0.1:${module.grpcPort}`);
    const store = createObjectStore({ endpoint: s3.endpoint, accessKey: 'S3RVER', secretKey: 'S3RVER', bucket: 'library-grpc', region: 'us-east-1' });
    await store.putObject('accounts/40/motion/intro.mp4', Buffer.from('12345'));
    await store.putObject('accounts/41/motion/logo.png', Buffer.from('1'));
  });

  afterAll(async () => {
    client?.close();
    await module?.drain();
    await module?.close();
    await Promise.all([dropPrefixedSchemas(prefix), deletePrefixedStreams(prefix)]);
    await s3?.close();
    if (s3Dir) await rm(s3Dir, { recursive: true, force: true });
  });

  it("answers the caller's account's files without an asset-library permission (the calling service checked its own)", async () => {
    expect(await find({ accountId: 40, paths: ['motion/intro.mp4', 'motion/logo.png'] })).toEqual({ files: [{ path: 'motion/intro.mp4', sizeBytes: 5 }] });
  });

  it('answers 404 for an account outside the caller scope, 401 without a principal, and 400 naming a path that breaks the rules', async () => {
    expect(await failure(find({ accountId: 41, paths: ['motion/logo.png'] }))).toMatchObject({ status: 404, code: 'ACCOUNT_NOT_FOUND' });
    expect(await failure(find({ accountId: 40, paths: ['motion/intro.mp4'] }, new Metadata()))).toMatchObject({ status: 401 });
    expect(await failure(find({ accountId: 40, paths: ['../41/motion/logo.png'] }))).toMatchObject({
      status: 400,
      errors: [expect.objectContaining({ pointer: '/paths/0', code: 'PATH_TRAVERSAL' })],
    });
  });
});
