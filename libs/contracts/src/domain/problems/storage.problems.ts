import { defineProblems } from './problem-entry';

/** Queues, the asset library, uploads and customers' cloud storage. */
export const STORAGE_PROBLEMS = defineProblems({
  QUEUE_NOT_FOUND: { status: 404, title: 'Queue not found' },
  ASSET_NOT_FOUND: { status: 404, title: 'Asset library file not found' },
  ASSET_FOLDER_NOT_FOUND: { status: 404, title: 'Asset library folder not found' },
  UPLOAD_ABORTED: { status: 400, title: 'The upload ended early' },
  UPLOAD_NOT_STAGED: { status: 400, title: 'The uploaded bytes were not found' },
  INVALID_STAGING_KEY: { status: 400, title: 'The staged upload belongs to another account' },
  UPLOAD_TOO_LARGE: { status: 413, title: 'The upload is too large' },
  CLOUD_SERVICE_NOT_FOUND: { status: 404, title: 'Cloud service not found' },
  // The customer's bucket, named in the request: 400 when the request's settings are wrong, 424 when the bucket failed.
  CLOUD_BUCKET_NOT_FOUND: { status: 400, title: 'The bucket does not exist or is not visible' },
  CLOUD_ENDPOINT_NOT_ALLOWED: { status: 400, title: 'The storage endpoint may not be reached' },
  CLOUD_CREDENTIALS_REJECTED: { status: 400, title: 'The bucket refused the credentials' },
  CLOUD_SOURCE_FAILED: { status: 424, title: "The customer's storage failed" },
  CLOUD_SOURCE_TIMEOUT: { status: 424, title: "The customer's storage did not answer in time" },
  // Job-notification webhooks (an extension).
  WEBHOOK_NOT_FOUND: { status: 404, title: 'Webhook not found' },
  WEBHOOK_DELIVERY_NOT_FOUND: { status: 404, title: 'Webhook delivery not found' },
});
