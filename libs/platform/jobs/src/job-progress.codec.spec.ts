import { decodeJobProgress, encodeJobProgress, JobStatus, type JobProgress } from './job-progress.codec';
import { jobProgressConsumerSpec, jobProgressSubject, JOB_PROGRESS_STREAM } from './job-progress.stream';

describe(encodeJobProgress.name, () => {
  it('round-trips every field, including sequences beyond 32 bits', () => {
    const event: JobProgress = {
      queueId: 'q-1',
      accountId: 4_000_000_000,
      kind: 'cloud-copy',
      status: JobStatus.JOB_STATUS_PROCESSING,
      totalItems: 120,
      totalProcessed: 60,
      message: 'copying',
      sequence: 1_795_000_000_000_001,
      occurredAt: '2026-11-22T10:00:00.000Z',
    };
    expect(decodeJobProgress(encodeJobProgress(event))).toEqual(event);
  });
});

describe(jobProgressSubject.name, () => {
  it('puts the kind under the prefixed progress subject the stream captures', () => {
    expect(jobProgressSubject('T1_', 'asset-upload')).toBe('T1_jobs.progress.asset-upload');
    expect(jobProgressSubject('', 'feed-ingest')).toBe('jobs.progress.feed-ingest');
    expect(JOB_PROGRESS_STREAM.subjects).toEqual(['jobs.progress.>']);
  });

  it.each(['a.b', '', 'a b', '*', '>'])('refuses the kind %j, which is not one subject token', (kind) => {
    expect(() => jobProgressSubject('', kind)).toThrow(/Invalid job kind/);
  });

  it('gives queue-view consumers every kind and a dead-letter subject of their own', () => {
    expect(jobProgressConsumerSpec('queue-view')).toMatchObject({
      stream: 'JOBS_PROGRESS',
      filterSubject: 'jobs.progress.>',
      deadLetterSubject: 'dlq.JOBS_PROGRESS.queue-view',
    });
  });
});
