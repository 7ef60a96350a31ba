import { joinAssetPath, MAX_PAGE_LIMIT, normalizeFolder, STORAGE_JOB_KINDS, STORAGE_LIMITS, type UploadJob } from '@contracts/domain';
import { AppError, type FieldError, problem } from '@platform/errors';
import { withTransaction } from '@platform/mysql';
import { InvalidObjectKeyError, type ObjectStore } from '@platform/s3';
import { recordChange, type AuditedChange, type EventOutbox } from '@platform/service';
import type { Knex } from 'knex';
import type { QueueService } from '../queues/queue.service';
import { assertNoErrors, fileNameErrors, pathErrors } from './path-rules';

export interface AssetFileEntry {
  name: string;
  /** Path inside the account's library. */
  path: string;
  sizeBytes: number;
  date: string;
}

export interface AssetListing {
  files: AssetFileEntry[];
  folders: string[];
  /** '' on the last page. */
  nextKey: string;
  path: string;
}

/** Our own object store failing is a 503 (a dependency of ours), never a 500 with its internals. */
async function onStore<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (error instanceof InvalidObjectKeyError) {
      throw problem('VALIDATION_FAILED', 'The path is not a valid storage key.', {
        errors: [{ parameter: 'path', code: 'INVALID_KEY', detail: error.message }],
      });
    }
    throw problem('OBJECT_STORE_UNAVAILABLE', 'The asset library storage is not available; try again shortly.', { cause: error });
  }
}

/** Every key of an account's library starts here; nothing a caller sends can name another account's keys. */
export const libraryRoot = (accountId: number) => `accounts/${accountId}/`;

export const DELETE_COMMANDS = ['deleteFile', 'deleteFolder'] as const;

/** Most paths one FindLibraryFiles call may ask about. */
export const FIND_FILES_MAX_PATHS = 1_000;
/** Stats in flight at once for one FindLibraryFiles call: a thousand paths never become a thousand open requests. */
export const FIND_FILES_CONCURRENCY = 16;

export interface FoundLibraryFile {
  path: string;
  sizeBytes: number;
}

/** Most bytes one ReadLibraryFile call answers: well inside gRPC's 4 MiB message limit. */
export const READ_FILE_MAX_CHUNK = 1024 * 1024;

export interface LibraryFileChunk {
  found: boolean;
  sizeBytes: number;
  etag: string;
  data: Buffer;
}

/** Runs `work` on every item, at most `lanes` at a time; results in the items' order. */
async function inLanes<T, R>(items: readonly T[], lanes: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const lane = async () => {
    while (!failed && next < items.length) {
      const at = next++;
      try {
        results[at] = await work(items[at]);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: Math.min(lanes, items.length) }, lane));
  const rejected = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (rejected) throw rejected.reason;
  return results;
}

/** The account's asset library on the object store, and the uploads into it. */
export class AssetLibraryService {
  constructor(
    private readonly store: ObjectStore,
    private readonly queues: QueueService,
    private readonly knex: Knex,
    private readonly events: EventOutbox,
  ) {}

  /**
   * The object store has no transaction to share, so a delete enters the trail once the store confirmed
   * it; a crash between the two loses the entry, never invents one.
   */
  private async audited(change: AuditedChange): Promise<void> {
    await withTransaction(this.knex, (trx) => recordChange(trx, this.events, change));
  }

  async list(accountId: number, request: { prefix: string; limit: number; nextKey: string }): Promise<AssetListing> {
    const limit = request.limit || 25;
    const errors: FieldError[] = [...pathErrors({ parameter: 'prefix' }, request.prefix), ...pathErrors({ parameter: 'nextKey' }, request.nextKey)];
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT) {
      errors.push({ parameter: 'limit', code: 'OUT_OF_RANGE', detail: `limit must be from 1 to ${MAX_PAGE_LIMIT}.` });
    }
    assertNoErrors(errors);
    const root = libraryRoot(accountId);
    const path = normalizeFolder(request.prefix);
    const prefix = path ? `${root}${path}/` : root;
    const page = await onStore(() => this.store.listPage({ prefix, limit, startAfter: request.nextKey ? `${root}${request.nextKey}` : undefined }));
    return {
      files: page.files.map((file) => ({
        name: file.key.slice(prefix.length),
        path: file.key.slice(root.length),
        sizeBytes: file.size,
        date: file.lastModified.toISOString(),
      })),
      folders: page.folders.map((folder) => folder.slice(prefix.length).replace(/\/$/, '')),
      nextKey: page.nextKey ? page.nextKey.slice(root.length) : '',
      path,
    };
  }

  async delete(accountId: number, request: { command: string; file: string; path: string }): Promise<string> {
    const root = libraryRoot(accountId);
    if (request.command === 'deleteFile') {
      assertNoErrors([
        ...(request.file
          ? fileNameErrors({ parameter: 'file' }, request.file)
          : [{ parameter: 'file', code: 'REQUIRED' as const, detail: 'file is required for deleteFile.' }]),
        ...pathErrors({ parameter: 'path' }, request.path),
      ]);
      const key = `${root}${joinAssetPath(request.path, request.file)}`;
      const stat = await onStore(() => this.store.statObject(key));
      if (!stat) throw problem('ASSET_NOT_FOUND', `File ${joinAssetPath(request.path, request.file)} was not found.`);
      await onStore(() => this.store.deleteObject(key));
      const path = joinAssetPath(request.path, request.file);
      await this.audited({ resourceType: 'asset-library-file', resourceId: path, action: 'delete', accountId, before: { path, sizeBytes: stat.size } });
      return `File ${joinAssetPath(request.path, request.file)} deleted.`;
    }
    if (request.command === 'deleteFolder') {
      const path = normalizeFolder(request.path);
      assertNoErrors(
        path ? pathErrors({ parameter: 'path' }, request.path) : [{ parameter: 'path', code: 'REQUIRED', detail: 'path is required for deleteFolder.' }],
      );
      const deleted = await onStore(() => this.store.deletePrefix(`${root}${path}/`));
      if (deleted === 0) throw problem('ASSET_FOLDER_NOT_FOUND', `Folder ${path} was not found.`);
      await this.audited({
        resourceType: 'asset-library-file',
        resourceId: `${path}/`,
        action: 'delete',
        accountId,
        before: { path: `${path}/`, files: deleted },
      });
      return `Folder ${path} deleted (${deleted} file${deleted === 1 ? '' : 's'}).`;
    }
    throw problem('VALIDATION_FAILED', 'command must be deleteFile or deleteFolder.', {
      errors: [{ parameter: 'command', code: 'NOT_ALLOWED', detail: `command must be one of ${DELETE_COMMANDS.join(', ')}.` }],
    });
  }

  /**
   * Which of the paths exist as files in the account's library, each once, in the order first asked.
   * Every path must obey the library's rules for a file path (a folder or a key outside the library
   * can never be named); the first failure of the object store fails the whole answer (503).
   */
  async findFiles(accountId: number, paths: readonly string[]): Promise<FoundLibraryFile[]> {
    if (paths.length > FIND_FILES_MAX_PATHS) {
      throw problem('VALIDATION_FAILED', `At most ${FIND_FILES_MAX_PATHS} paths may be looked up at once.`, {
        errors: [{ pointer: '/paths', code: 'TOO_MANY_ITEMS', detail: `paths may hold at most ${FIND_FILES_MAX_PATHS} entries, got ${paths.length}.` }],
      });
    }
    assertNoErrors(paths.flatMap((path, i) => fileNameErrors({ pointer: `/paths/${i}` }, path)));
    const root = libraryRoot(accountId);
    const unique = [...new Set(paths)];
    const stats = await onStore(() => inLanes(unique, FIND_FILES_CONCURRENCY, (path) => this.store.statObject(`${root}${path}`)));
    return unique.flatMap((path, i) => {
      const stat = stats[i];
      return stat ? [{ path, sizeBytes: stat.size }] : [];
    });
  }

  /**
   * One chunk of a library file for a peer that streams it (a feed read from the library). The size and
   * ETag come with every chunk, so a reader sees when the file changed under it.
   */
  async readFile(accountId: number, path: string, offset: number, length: number): Promise<LibraryFileChunk> {
    const errors = fileNameErrors({ pointer: '/path' }, path);
    if (!Number.isSafeInteger(offset) || offset < 0) errors.push({ pointer: '/offset', code: 'OUT_OF_RANGE', detail: 'offset must be 0 or more.' });
    if (!Number.isInteger(length) || length < 1 || length > READ_FILE_MAX_CHUNK)
      errors.push({ pointer: '/length', code: 'OUT_OF_RANGE', detail: `length must be from 1 to ${READ_FILE_MAX_CHUNK}.` });
    assertNoErrors(errors);
    const key = `${libraryRoot(accountId)}${path}`;
    const stat = await onStore(() => this.store.statObject(key));
    if (!stat) return { found: false, sizeBytes: 0, etag: '', data: Buffer.alloc(0) };
    // S3 refuses a range that starts at or past the end (416); past the end there is simply nothing.
    const data = offset < stat.size ? await onStore(() => this.store.getObjectRange(key, offset, Math.min(length, stat.size - offset))) : Buffer.alloc(0);
    return { found: true, sizeBytes: stat.size, etag: stat.etag, data };
  }

  /** Queues the placement of bytes the edge staged; the worker extracts a zip, places anything else. */
  async startUpload(accountId: number, request: UploadJob): Promise<string> {
    const errors = [...pathErrors({ pointer: '/path' }, request.path), ...fileNameErrors({ pointer: '/file' }, request.fileName)];
    assertNoErrors(errors);
    if (!request.stagingKey.startsWith(`staging/uploads/${accountId}/`) || request.stagingKey.includes('..')) {
      throw problem('INVALID_STAGING_KEY', 'The staged upload does not belong to this account.');
    }
    if (request.sizeBytes > STORAGE_LIMITS.uploadMaxBytes) {
      throw problem('UPLOAD_TOO_LARGE', `An upload may hold at most ${STORAGE_LIMITS.uploadMaxBytes} bytes.`);
    }
    const staged = await onStore(() => this.store.statObject(request.stagingKey));
    if (!staged) throw problem('UPLOAD_NOT_STAGED', 'The uploaded bytes were not found.');
    const job: UploadJob = { ...request, path: normalizeFolder(request.path), sizeBytes: staged.size };
    return this.queues.enqueue(STORAGE_JOB_KINDS.upload, accountId, job, {
      resourceType: 'asset-library-upload',
      after: { path: job.path, fileName: job.fileName, sizeBytes: job.sizeBytes },
    });
  }
}
