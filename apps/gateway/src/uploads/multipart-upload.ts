import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import busboy from 'busboy';
import { assetFileNameViolation, assetPathViolation, ASSET_PATH_MAX, uploadStagingKey } from '@contracts/domain';
import { AppError, type FieldError, type FieldErrorCode, problem, validationFailed } from '@platform/errors';
import type { ObjectStore } from '@platform/s3';

export interface StagedUpload {
  stagingKey: string;
  fileName: string;
  path: string;
  sizeBytes: number;
}

export const uploadTooLarge = (maxBytes: number, headers?: Record<string, string>) =>
  problem('UPLOAD_TOO_LARGE', `An upload may hold at most ${maxBytes} bytes; nothing was kept.`, { headers });

const ruleError = (pointer: string, broken: { code: FieldErrorCode; detail: string }): FieldError => ({ pointer, code: broken.code, detail: broken.detail });

/**
 * Reads a multipart/form-data upload (`file`, optional `path`) and streams the file to a staging key
 * as it arrives: busboy hands over the part as a stream and the object store cuts it into parts, so
 * at most two parts are in memory whatever the file's size. The file name is checked before a byte
 * is stored; past maxBytes the store is aborted and the answer is 413. A refused upload leaves nothing
 * staged.
 */
export async function stageMultipartUpload(req: IncomingMessage, accountId: number, store: ObjectStore, maxBytes: number): Promise<StagedUpload> {
  const stagingKey = uploadStagingKey(accountId, randomUUID());
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: req.headers, limits: { files: 1, fields: 4, fieldSize: ASSET_PATH_MAX * 4, fileSize: maxBytes, parts: 5 } });
  } catch {
    throw validationFailed([{ header: 'content-type', code: 'INVALID_MULTIPART', detail: 'Content-Type must be multipart/form-data with a boundary.' }]);
  }

  let path = '';
  let fileName: string | undefined;
  let stored: Promise<{ size: number }> | undefined;
  let tooLarge = false;
  let tooMany = false;
  const errors: FieldError[] = [];

  const parsed = new Promise<void>((resolve, reject) => {
    parser.on('field', (name, value) => {
      if (name === 'path') path = value;
    });
    parser.on('file', (name, file: Readable, info) => {
      if (name !== 'file' || stored) {
        file.resume();
        return;
      }
      fileName = info.filename ?? '';
      const broken = assetFileNameViolation(fileName);
      if (broken) {
        errors.push(ruleError('/file', broken));
        file.resume();
        return;
      }
      // The store reads this pass-through; busboy's 'limit' turns into an error that aborts the store.
      const body = new PassThrough();
      file.on('limit', () => {
        tooLarge = true;
        // The rest of the part is read and dropped, so the parser reaches the end of the body.
        file.unpipe(body);
        file.resume();
        body.destroy(uploadTooLarge(maxBytes));
      });
      file.on('error', (error) => body.destroy(error));
      file.pipe(body);
      stored = store.putObject(stagingKey, body, { contentType: info.mimeType || 'application/octet-stream' });
      // Seen when the whole body is parsed; marked handled so a refusal does not surface as unhandled.
      stored.catch(() => undefined);
    });
    parser.on('filesLimit', () => {
      tooMany = true;
    });
    parser.on('partsLimit', () => {
      tooMany = true;
    });
    parser.on('close', resolve);
    parser.on('error', reject);
    req.on('aborted', () => reject(problem('UPLOAD_ABORTED', 'The upload ended before its body did.')));
    req.pipe(parser);
  });

  try {
    await parsed;
  } catch (error) {
    await discard(store, stagingKey, stored);
    if (error instanceof AppError) throw error;
    throw validationFailed([{ pointer: '', code: 'INVALID_MULTIPART', detail: 'The body is not a well-formed multipart/form-data body.' }]);
  }
  let size = 0;
  try {
    size = stored ? (await stored).size : 0;
  } catch (error) {
    await discard(store, stagingKey, undefined);
    if (tooLarge) throw uploadTooLarge(maxBytes);
    throw error;
  }
  if (tooLarge) {
    await discard(store, stagingKey, undefined);
    throw uploadTooLarge(maxBytes);
  }
  const pathBroken = assetPathViolation(path);
  if (pathBroken) errors.push(ruleError('/path', pathBroken));
  if (fileName === undefined) errors.push({ pointer: '/file', code: 'REQUIRED', detail: 'The multipart body needs a file part named "file".' });
  if (tooMany) errors.push({ pointer: '/file', code: 'TOO_MANY_PARTS', detail: 'Send one file part and at most the path field.' });
  if (errors.length > 0) {
    await discard(store, stagingKey, undefined);
    // The rule's own text leads, so the message names the rule broken.
    throw problem('VALIDATION_FAILED', errors.length === 1 ? errors[0].detail : `The request has ${errors.length} invalid fields.`, { errors });
  }
  return { stagingKey, fileName: fileName as string, path, sizeBytes: size };
}

async function discard(store: ObjectStore, key: string, pending: Promise<unknown> | undefined): Promise<void> {
  await pending?.catch(() => undefined);
  await store.deleteObject(key).catch(() => undefined);
}
