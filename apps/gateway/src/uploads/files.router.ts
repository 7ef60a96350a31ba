import { Router } from 'express';
import { AppError, notFound } from '@platform/errors';
import { InvalidObjectKeyError, ObjectNotFoundError, type ObjectStore } from '@platform/s3';

const fileNotFound = () => notFound('FILE_NOT_FOUND', 'No file is stored at this address.');

/**
 * GET /files/accounts/<accountId>/<path>: a library file's bytes, exactly as stored, as a CDN in
 * front of the bucket would serve them (no API key: the cdnUrl is the file's public address).
 * Only keys under accounts/ are reachable; staged uploads are not.
 */
export function filesRouter(store: ObjectStore): Router {
  const router = Router();
  router.get(/^\/files\/(accounts\/\d+\/.+)$/, (req, res, next) => {
    (async () => {
      const key = (req.params as unknown as string[])[0];
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
      res.status(200).set({ 'Content-Type': stat.contentType, 'Content-Length': String(stat.size), 'Cache-Control': 'public, max-age=300' });
      body.on('error', (error) => res.destroy(error));
      body.pipe(res);
    })().catch((error: unknown) =>
      next(
        error instanceof AppError
          ? error
          : new AppError(503, 'OBJECT_STORE_UNAVAILABLE', 'The file storage is not available; try again shortly.', { cause: error }),
      ),
    );
  });
  return router;
}
