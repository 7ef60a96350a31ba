import { publish } from '@platform/nats';
import type { JetStreamClient } from 'nats';
import { encodeJobProgress, JobStatus, type JobProgress } from './job-progress.codec';
import { jobProgressSubject } from './job-progress.stream';

export interface JobProgressReport {
  status: JobStatus;
  /** 0 while the job is still counting its items. */
  totalItems: number;
  totalProcessed: number;
  /** Shown to the API client as is: never put secrets or internal details here. */
  message?: string;
}

export interface JobProgressPublisher {
  /** Publishes the job's current state and resolves with the event once JetStream stored it. */
  report(queueId: string, accountId: number, progress: JobProgressReport): Promise<JobProgress>;
}

export interface JobProgressPublisherOptions {
  js: JetStreamClient;
  /** NATS_PREFIX. */
  prefix: string;
  kind: string;
  /** Milliseconds since the epoch; injectable so tests control sequences and timestamps. */
  clock?: () => number;
}

const TERMINAL = new Set<JobStatus>([JobStatus.JOB_STATUS_COMPLETED, JobStatus.JOB_STATUS_FAILED]);

/**
 * Publishes a worker's progress events. `sequence` is monotonic per queue id and derived from the
 * clock (microseconds, bumped when two reports share one), not a counter from 1: a job redelivered
 * to another worker after a crash must still out-sequence what the first worker published, or the
 * queue view would drop its reports as stale. Nats-Msg-Id is `<queueId>:<sequence>`, so a retried
 * publish of the same report is deduplicated by the stream.
 */
export function createJobProgressPublisher({ js, prefix, kind, clock = Date.now }: JobProgressPublisherOptions): JobProgressPublisher {
  const subject = jobProgressSubject(prefix, kind);
  // Only needed while reports for a queue id keep coming; forgotten once the job ends.
  const lastSequence = new Map<string, number>();

  const nextSequence = (queueId: string, nowMs: number) => {
    const sequence = Math.max((lastSequence.get(queueId) ?? 0) + 1, Math.floor(nowMs) * 1_000);
    lastSequence.set(queueId, sequence);
    return sequence;
  };

  return {
    report: async (queueId, accountId, { status, totalItems, totalProcessed, message = '' }) => {
      if (!queueId) throw new Error('report: queueId is required');
      for (const [name, value] of Object.entries({ totalItems, totalProcessed })) {
        if (!Number.isSafeInteger(value) || value < 0) throw new Error(`report: ${name} must be a non-negative integer`);
      }
      const nowMs = clock();
      const event: JobProgress = {
        queueId,
        accountId,
        kind,
        status,
        totalItems,
        totalProcessed,
        message,
        sequence: nextSequence(queueId, nowMs),
        occurredAt: new Date(nowMs).toISOString(),
      };
      if (TERMINAL.has(status)) lastSequence.delete(queueId);
      await publish(js, subject, encodeJobProgress(event), { msgId: `${queueId}:${event.sequence}` });
      return event;
    },
  };
}
