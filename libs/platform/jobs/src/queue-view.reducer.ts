import { JobStatus, type JobProgress } from './job-progress.codec';

/** The status strings of the interface's queue endpoints. */
export type QueueStatus = 'Queued' | 'Processing' | 'Completed' | 'Failed';

/** What GET /v2/queues/:queueId shows, folded from the job's progress events. */
export interface QueueView {
  queueId: string;
  accountId: number;
  kind: string;
  status: QueueStatus;
  totalItems: number;
  totalProcessed: number;
  message: string;
  /** Sequence of the last event applied; older or equal ones are ignored. */
  sequence: number;
  /** occurredAt of the last event applied (RFC 3339). */
  updatedAt: string;
}

const STATUS_NAMES: Partial<Record<JobStatus, QueueStatus>> = {
  [JobStatus.JOB_STATUS_QUEUED]: 'Queued',
  [JobStatus.JOB_STATUS_PROCESSING]: 'Processing',
  [JobStatus.JOB_STATUS_COMPLETED]: 'Completed',
  [JobStatus.JOB_STATUS_FAILED]: 'Failed',
};

export function queueStatusOf(status: JobStatus): QueueStatus | undefined {
  return STATUS_NAMES[status];
}

const isFinal = (status: QueueStatus) => status === 'Completed' || status === 'Failed';

/**
 * Folds one progress event into the queue view. Events arrive at least once and not necessarily in
 * order (redeliveries, several workers), so:
 * - an event whose sequence is not newer than the view's is a duplicate or stale and changes nothing;
 * - totalProcessed never goes backwards, and a totalItems of 0 ("still counting") keeps the known one,
 *   except in a Completed that counted its items, whose counts are the job's own result: a job started
 *   over (handed back, or redelivered after a crash) may end with fewer than an earlier attempt had
 *   counted (a Completed of 0 items, such as a redelivery finding the job done, keeps the known counts);
 * - Completed and Failed are final: a newer event after them comes from a redelivered job message
 *   replaying work that already ended, and must not reopen the queue;
 * - an event for another account is ignored, so a queue id can never move between accounts;
 * - an unknown status keeps the previous one (a new view starts as Queued).
 */
export function applyJobProgress(current: QueueView | undefined, event: JobProgress): QueueView {
  if (current) {
    if (event.queueId !== current.queueId) {
      throw new Error(`applyJobProgress: event for queue ${event.queueId} applied to queue ${current.queueId}`);
    }
    if (event.accountId !== current.accountId || event.sequence <= current.sequence || isFinal(current.status)) {
      return current;
    }
  }
  const countedCompletion = event.status === JobStatus.JOB_STATUS_COMPLETED && event.totalItems > 0;
  return {
    queueId: event.queueId,
    accountId: event.accountId,
    kind: event.kind || current?.kind || '',
    status: queueStatusOf(event.status) ?? current?.status ?? 'Queued',
    totalItems: event.totalItems > 0 ? event.totalItems : (current?.totalItems ?? 0),
    totalProcessed: countedCompletion ? event.totalProcessed : Math.max(current?.totalProcessed ?? 0, event.totalProcessed),
    message: event.message,
    sequence: event.sequence,
    updatedAt: event.occurredAt,
  };
}
