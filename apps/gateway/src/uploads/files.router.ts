import type { Request, Response } from 'express';
import { Router } from 'express';
import { TEMPLATE_THUMBNAIL_KEY_PATTERN, templateThumbnailObjectKey } from '@contracts/domain';
import { AppError, problem } from '@platform/errors';
import { InvalidObjectKeyError, ObjectNotFoundError, readStoredZipEntry, type ObjectStore } from '@platform/s3';
import { byteRange } from './byte-range';
import { zipEntryOf, zipEntryType } from './zip-entry-request';

const fileNotFound = () => problem('FILE_NOT_FOUND', 'No file is stored at this address.');

/** Where template thumbnails are served; the templates service stores each at templateThumbnailObjectKey(<key>). */
const TEMPLATE_THUMBNAILS_PATH = '/files/templates';

/** A template thumbnail's public address: PUBLIC_BASE_URL (or the request's origin) and its content key. */
export const templateThumbnailUrl = (base: string, key: string) => `${base}${TEMPLATE_THUMBNAILS_PATH}/${key}.png`;

/** `/files/templates/<key>.png`, the key captured; anything else under the path is not found. */
const TEMPLATE_THUMBNAIL_ROUTE = new RegExp(`^${TEMPLATE_THUMBNAILS_PATH}/(${TEMPLATE_THUMBNAIL_KEY_PATTERN.slice(1, -1)})\\.png$`);

/** A thumbnail's key names its content, so the bytes under it never change: cached for a year, never revalidated. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** A key that is not valid or not there is a missing file, to the client. */
const notFoundAsFileNotFound = (error: unknown): never => {
  if (error instanceof InvalidObjectKeyError || error instanceof ObjectNotFoundError) throw fileNotFound();
  throw error;
};

/** 416 for a Range that starts past the end of a body of `size` bytes. */
const unsatisfiable = (res: Response, size: number, headers: Record<string, string>) =>
  void res
    .status(416)
    .set({ ...headers, 'Content-Range': `bytes */${size}` })
    .end();

/**
 * Streams the object under `key` with its stored type and length, or answers 404 when there is none. A single
 * byte `Range` is answered 206 with those bytes only (video players seek and start with ranges).
 */
async function sendObject(store: ObjectStore, key: string, req: Request, res: Response, headers: Record<string, string>): Promise<void> {
  const stat = await store.statObject(key).catch(notFoundAsFileNotFound);
  if (!stat) throw fileNotFound();
  const range = byteRange(req.get('range'), stat.size);
  const all = { 'Content-Type': stat.contentType, 'Accept-Ranges': 'bytes', ...headers };
  if (range === 'unsatisfiable') return unsatisfiable(res, stat.size, all);
  const body = await store.getObject(key, range && { offset: range.start, length: range.end - range.start + 1 }).catch(notFoundAsFileNotFound);
  if (range)
    res.status(206).set({ ...all, 'Content-Length': String(range.end - range.start + 1), 'Content-Range': `bytes ${range.start}-${range.end}/${stat.size}` });
  else res.status(200).set({ ...all, 'Content-Length': String(stat.size) });
  body.on('error', (error) => res.destroy(error));
  body.pipe(res);
}

/**
 * Answers one stored entry of the zip under `key` (`?entry=<name>&at=<offset>&bytes=<n>`, an export's still):
 * one range read of the zip, checked against the entry's local header, typed by the entry's name; 404 when the
 * zip has no such entry there.
 */
async function sendZipEntry(store: ObjectStore, key: string, req: Request, res: Response, headers: Record<string, string>): Promise<void> {
  const entry = zipEntryOf(req.query);
  if (!entry) throw fileNotFound();
  const bytes = await readStoredZipEntry(store, key, entry).catch(notFoundAsFileNotFound);
  if (!bytes) throw fileNotFound();
  const range = byteRange(req.get('range'), bytes.length);
  const all = { 'Content-Type': zipEntryType(entry.name), 'Accept-Ranges': 'bytes', 'X-Content-Type-Options': 'nosniff', ...headers };
  if (range === 'unsatisfiable') return unsatisfiable(res, bytes.length, all);
  if (range)
    res
      .status(206)
      .set({ ...all, 'Content-Range': `bytes ${range.start}-${range.end}/${bytes.length}` })
      .end(bytes.subarray(range.start, range.end + 1));
  else res.status(200).set(all).end(bytes);
}

/** Our own object store failing is a 503 (a dependency of ours), never a 500 with its internals. */
const unavailable = (error: unknown) =>
  error instanceof AppError ? error : problem('OBJECT_STORE_UNAVAILABLE', 'The file storage is not available; try again shortly.', { cause: error });

/**
 * GET /files/accounts/<accountId>/<path>: a library file's bytes, exactly as stored, as a CDN in
 * front of the bucket would serve them (no API key: the cdnUrl is the file's public address); with
 * `?entry=`, one stored entry of that zip (`accountZipEntryUrl`: an export's still). Both answer a byte Range.
 * GET /files/templates/<key>.png: a template thumbnail, by the content hash the templates service
 * stored it under (no API key either: the URL is the capability; the hash cannot be guessed without
 * the layout it shows). Only those two prefixes are reachable; staged uploads are not.
 */
export function filesRouter(store: ObjectStore): Router {
  const router = Router();
  router.get(/^\/files\/(accounts\/\d+\/.+)$/, (req, res, next) => {
    const key = (req.params as unknown as string[])[0] as string;
    // Account files are what served ads show on publishers' pages, which are other sites: readable cross-origin.
    const headers = { 'Cache-Control': 'public, max-age=300', 'Cross-Origin-Resource-Policy': 'cross-origin' };
    (req.query.entry === undefined ? sendObject(store, key, req, res, headers) : sendZipEntry(store, key, req, res, headers)).catch((error: unknown) =>
      next(unavailable(error)),
    );
  });
  router.get(TEMPLATE_THUMBNAIL_ROUTE, (req, res, next) => {
    const hash = (req.params as unknown as string[])[0] as string;
    const etag = `"${hash}"`;
    // The ETag is the key itself, so a revalidation is answered without asking the store.
    if (
      req
        .get('if-none-match')
        ?.split(',')
        .some((tag) => tag.trim().replace(/^W\//, '') === etag)
    ) {
      res.status(304).set({ ETag: etag, 'Cache-Control': IMMUTABLE }).end();
      return;
    }
    sendObject(store, templateThumbnailObjectKey(hash), req, res, { 'Cache-Control': IMMUTABLE, ETag: etag }).catch((error: unknown) =>
      next(unavailable(error)),
    );
  });
  return router;
}
