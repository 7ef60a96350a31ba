import type { IncomingMessage } from 'node:http';
import type { ObjectStore } from '@platform/s3';
import { stageMultipartUpload, uploadTooLarge, type StagedUpload } from './multipart-upload';

/** Room the multipart framing and the path field take beside the file itself. */
const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

/**
 * What a route with a multipart body does with it, once the route binder has run every check that
 * needs no body: stream it to a staging key, and drop the staged file when the backend refuses it.
 */
export interface UploadStaging {
  stage(req: IncomingMessage, accountId: number): Promise<StagedUpload>;
  discard(staged: StagedUpload): Promise<void>;
}

export function createUploadStaging(store: ObjectStore, maxBytes: number): UploadStaging {
  return {
    stage: async (req, accountId) => {
      // A body announced as too large is refused unread; closing the connection spares reading it.
      if (Number(req.headers['content-length'] ?? 0) > maxBytes + MULTIPART_OVERHEAD_BYTES) throw uploadTooLarge(maxBytes, { Connection: 'close' });
      return stageMultipartUpload(req, accountId, store, maxBytes);
    },
    discard: async ({ stagingKey }) => {
      await store.deleteObject(stagingKey).catch(() => undefined);
    },
  };
}
