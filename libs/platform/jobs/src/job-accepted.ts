import type { Logger } from '@platform/logging';
import { encodeJobProgress, JobStatus, type JobProgress } from './job-progress.codec';
import { jobProgressSubject } from './job-progress.stream';
import { jobRequestSubject, type JobRequest } from './job-request';

/** An outbox entry (the shape of @platform/service's DomainEvent): subject without NATS_PREFIX. */
export interface JobOutboxEntry {
  subject: string;
  msgId: string;
  payload: unknown;
  encoded?: Uint8Array;
  relayAtCommit?: boolean;
}

/**
 * How far before its acceptance the Queued event is sequenced: a replica whose clock runs up to this
 * much behind the accepting one still out-sequences it with its first report (an event not newer than
 * the view's is dropped as stale).
 */
const QUEUED_SEQUENCE_LEAD_MS = 60_000;

/**
 * What a service that accepts a job but does not keep the queue view records in the transaction of
 * its own change: the request for the worker, and the job's Queued progress event, which creates the
 * queue view (storage-library folds it like any other progress). Both go through the outbox, so the
 * queue, the request and the change commit together or not at all. The Queued event's sequence is
 * counted as the progress publisher counts (microseconds of the clock), a minute before the
 * acceptance, so every report of the run that follows out-sequences it. `queued` is that event, for a service that also hands it to the queue
 * view at once after its commit (so the queue id it answers can be read straight away).
 */
export function jobAcceptedEntries(request: JobRequest, acceptedAtMs: number, message = 'Queued'): { entries: JobOutboxEntry[]; queued: JobProgress } {
  const queued = progressBeforeStart(request, JobStatus.JOB_STATUS_QUEUED, message, acceptedAtMs, Math.floor(acceptedAtMs) - QUEUED_SEQUENCE_LEAD_MS);
  const entries = [
    progressEntry(queued),
    // The worker waits for the request: relayed at commit, not at the relay's next poll.
    { subject: jobRequestSubject(request.kind), msgId: `job:${request.queueId}`, payload: request, relayAtCommit: true },
  ];
  return { entries, queued };
}

/**
 * The Failed event of a job ended before any worker took it (its owner cancelled it), for the outbox
 * of the transaction that ends it: sequenced as the progress publisher counts, so it out-sequences the
 * Queued event, and final in the queue view, so the worker's own report when the request reaches it
 * changes nothing.
 */
export function jobEndedUnstartedEntry(job: Pick<JobRequest, 'queueId' | 'accountId' | 'kind'>, endedAtMs: number, message: string): JobOutboxEntry {
  return { ...progressEntry(progressBeforeStart(job, JobStatus.JOB_STATUS_FAILED, message, endedAtMs, Math.floor(endedAtMs))), relayAtCommit: true };
}

/** A progress event of a job no worker has reported on (nothing counted), sequenced at `sequenceMs` as the publisher counts (microseconds). */
function progressBeforeStart(
  job: Pick<JobRequest, 'queueId' | 'accountId' | 'kind'>,
  status: JobStatus,
  message: string,
  atMs: number,
  sequenceMs: number,
): JobProgress {
  return {
    queueId: job.queueId,
    accountId: job.accountId,
    kind: job.kind,
    status,
    totalItems: 0,
    totalProcessed: 0,
    message,
    sequence: sequenceMs * 1_000,
    occurredAt: new Date(atMs).toISOString(),
  };
}

/** A progress event as an outbox entry: protobuf, under its unprefixed subject, its message id its queue and sequence. */
function progressEntry(event: JobProgress): JobOutboxEntry {
  return { subject: jobProgressSubject('', event.kind), msgId: `${event.queueId}:${event.sequence}`, payload: null, encoded: encodeJobProgress(event) };
}

/** Where a job's Queued state goes at once after the commit that accepts it (storage-library's queue view). */
export interface QueueViewAnnouncer {
  recordQueued(event: JobProgress): Promise<void>;
}

/**
 * Hands a committed job's Queued state (`jobAcceptedEntries(...).queued`) to the queue view at once, so
 * the queueId answered can be polled straight away. Its outbox event carries the same state, so when
 * this fails (storage-library restarting) the queue still appears a moment later: the failure is
 * logged, not answered.
 */
export async function announceQueued(queueView: QueueViewAnnouncer | undefined, queued: JobProgress, logger: Logger): Promise<void> {
  try {
    await queueView?.recordQueued(queued);
  } catch (error) {
    logger.warn({ err: error, queueId: queued.queueId, kind: queued.kind }, 'the queue view will show the job once its Queued event is relayed');
  }
}
