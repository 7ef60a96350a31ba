import { deadLetterSubjectFor, naming, type ConsumerSpec, type StreamSpec } from '@platform/nats';

/**
 * Progress events of every async job. Unprefixed, like every spec: apply
 * `naming(prefix).streamSpec(JOB_PROGRESS_STREAM)`, giving subjects `<prefix>jobs.progress.>`.
 * Kept a week: the queue view is rebuilt from it if storage-library's copy is ever lost.
 */
export const JOB_PROGRESS_STREAM: StreamSpec = {
  name: 'JOBS_PROGRESS',
  subjects: ['jobs.progress.>'],
  maxAgeMs: 7 * 24 * 60 * 60_000,
};

/** A job kind is one subject token, e.g. `asset-upload`, `cloud-copy`, `feed-ingest`, `asset-export`. */
const KIND_PATTERN = /^[A-Za-z0-9_-]+$/;

export function jobProgressSubject(prefix: string, kind: string): string {
  if (!KIND_PATTERN.test(kind)) throw new Error(`Invalid job kind ${JSON.stringify(kind)}: one subject token of letters, digits, - and _`);
  return naming(prefix).subject(`jobs.progress.${kind}`);
}

/** A durable consumer of all job kinds, for whoever keeps a queue view (unprefixed, like the stream). */
export function jobProgressConsumerSpec(durable: string): ConsumerSpec {
  return {
    stream: JOB_PROGRESS_STREAM.name,
    durable,
    filterSubject: 'jobs.progress.>',
    maxDeliver: 5,
    ackWaitMs: 30_000,
    deadLetterSubject: deadLetterSubjectFor(JOB_PROGRESS_STREAM.name, durable),
  };
}
