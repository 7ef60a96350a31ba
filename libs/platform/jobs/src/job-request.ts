import { deadLetterSubjectFor, naming, type ConsumerSpec, type StreamSpec } from '@platform/nats';

/**
 * Jobs asked of a worker. The service that accepts a job writes its queue row and the request in
 * one transaction (the request goes through the outbox), so a job is either queued and requested or
 * neither. Subjects `jobs.requested.<kind>`, unprefixed like every spec.
 */
export const JOB_REQUEST_STREAM: StreamSpec = {
  name: 'JOBS_REQUESTED',
  subjects: ['jobs.requested.>'],
  maxAgeMs: 7 * 24 * 60 * 60_000,
};

/** What a job message carries besides its kind's own payload. Never a plaintext secret. */
export interface JobRequest<P = unknown> {
  queueId: string;
  accountId: number;
  kind: string;
  payload: P;
}

const KIND_PATTERN = /^[A-Za-z0-9_-]+$/;

/** The subject of a kind's requests, without NATS_PREFIX (the outbox recorder applies it). */
export function jobRequestSubject(kind: string): string {
  if (!KIND_PATTERN.test(kind)) throw new Error(`Invalid job kind ${JSON.stringify(kind)}: one subject token of letters, digits, - and _`);
  return `jobs.requested.${kind}`;
}

/** The prefixed subject, for publishing without the outbox (tests). */
export const prefixedJobRequestSubject = (prefix: string, kind: string) => naming(prefix).subject(jobRequestSubject(kind));

/**
 * A worker's durable consumer of one kind. The ack wait is long because a job (a zip of thousands of
 * files, a copy of gigabytes) runs while its message is held; the worker extends it while working.
 */
export function jobRequestConsumerSpec(durable: string, kind: string, maxDeliver = 5, ackWaitMs = 60_000): ConsumerSpec {
  return {
    stream: JOB_REQUEST_STREAM.name,
    durable,
    filterSubject: jobRequestSubject(kind),
    maxDeliver,
    ackWaitMs,
    deadLetterSubject: deadLetterSubjectFor(JOB_REQUEST_STREAM.name, durable),
  };
}

export function encodeJobRequest(request: JobRequest): Buffer {
  return Buffer.from(JSON.stringify(request));
}

export function decodeJobRequest<P>(data: Uint8Array): JobRequest<P> {
  const parsed = JSON.parse(Buffer.from(data).toString('utf8')) as JobRequest<P>;
  if (typeof parsed?.queueId !== 'string' || typeof parsed.accountId !== 'number' || typeof parsed.kind !== 'string') {
    throw new Error('Not a job request: queueId, accountId and kind are required');
  }
  return parsed;
}
