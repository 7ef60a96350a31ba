/**
 * How many jobs of each kind one account may have queued or running at once. The service that accepts
 * a job of the kind checks it (`admitJob` in @platform/mysql, also exported by @platform/jobs) in the transaction that queues it; past
 * it the request is refused with 429 JOB_LIMIT_REACHED and nothing is queued. A kind not listed has no cap.
 */
export const JOB_CONCURRENCY_CAPS: Readonly<Record<string, number>> = {
  'asset-upload': 10,
  'cloud-copy': 5,
  'asset-export': 5,
  'feed-ingest': 3,
};
