import type { Response } from 'express';
import { Router } from 'express';
import { TEMPLATE_THUMBNAIL_KEY_PATTERN, templateThumbnailObjectKey } from '@contracts/domain';
import { AppError, problem } from '@platform/errors';
import { InvalidObjectKeyError, ObjectNotFoundError, type ObjectStore } from '@platform/s3';

const fileNotFound = () => problem('FILE_NOT_FOUND', 'No file is stored at this address.');

/** Where template thumbnails are served; the templates service stores each at templateThumbnailObjectKey(<key>). */
const TEMPLATE_THUMBNAILS_PATH = '/files/templates';

/** A template thumbnail's public address: PUBLIC_BASE_URL (or the request's origin) and its content key. */
export const templateThumbnailUrl = (base: string, key: string) => `${base}${TEMPLATE_THUMBNAILS_PATH}/${key}.png`;

/** `/files/templates/<key>.png`, the key captured; anything else under the path is not found. */
const TEMPLATE_THUMBNAIL_ROUTE = new RegExp(`^${TEMPLATE_THUMBNAILS_PATH}/(${TEMPLATE_THUMBNAIL_KEY_PATTERN.slice(1, -1)})\\.png$`);

/** A thumbnail's key names its content, so the bytes under it never change: cached for a year, never revalidated. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Streams the object under `key` with its stored type and length, or answers 404 when there is none. */
async function sendObject(store: ObjectStore, key: string, res: Response, headers: Record<string, string>): Promise<void> {
  let stat;
  try {
    stat = await store.statObject(key);
  } catch (error) {
    if (error instanceof InvalidObjectKeyError) throw fileNotFound();
    throw error;
  }
  if (!stat) throw fileNotFound();
  let body;
  try {
    body = await store.getObject(key);
  } catch (error) {
    if (error instanceof ObjectNotFoundError) throw fileNotFound();
    throw error;
  }
  res.status(200).set({ 'Content-Type': stat.contentType, 'Content-Length': String(stat.size), ...headers });
  body.on('error', (error) => res.destroy(error));
  body.pipe(res);
}

/** Our own object store failing is a 503 (a dependency of ours), never a 500 with its internals. */
const unavailable = (error: unknown) =>
  error instanceof AppError ? error : problem('OBJECT_STORE_UNAVAILABLE', 'The file storage is not available; try again shortly.', { cause: error });

/**
 * GET /files/accounts/<accountId>/<path>: a library file's bytes, exactly as stored, as a CDN in
 * front of the bucket would serve them (no API key: the cdnUrl is the file's public address).
 * GET /files/templates/<key>.png: a template thumbnail, by the content hash the templates service
 * stored it under (no API key either: the URL is the capability; the hash cannot be guessed without
 * the layout it shows). Only those two prefixes are reachable; staged uploads are not.
 */
export function filesRouter(store: ObjectStore): Router {
  const router = Router();
  router.get(/^\/files\/(accounts\/\d+\/.+)$/, (req, res, next) => {
    const key = (req.params as unknown as string[])[0] as string;
    // Account files are what served ads show on publishers' pages, which are other sites: readable cross-origin.
    sendObject(store, key, res, { 'Cache-Control': 'public, max-age=300', 'Cross-Origin-Resource-Policy': 'cross-origin' }).catch((error: unknown) =>
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
    sendObject(store, templateThumbnailObjectKey(hash), res, { 'Cache-Control': IMMUTABLE, ETag: etag }).catch((error: unknown) => next(unavailable(error)));
  });
  return router;
}
