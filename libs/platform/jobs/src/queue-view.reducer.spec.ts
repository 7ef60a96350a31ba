import { JobStatus, type JobProgress } from './job-progress.codec';
import { applyJobProgress, type QueueView } from './queue-view.reducer';

function event(sequence: number, overrides: Partial<JobProgress> = {}): JobProgress {
  return {
    queueId: 'q-1',
    accountId: 7,
    kind: 'asset-upload',
    status: JobStatus.JOB_STATUS_PROCESSING,
    totalItems: 10,
    totalProcessed: 0,
    message: '',
    sequence,
    occurredAt: `2026-01-01T00:00:${String(sequence).padStart(2, '0')}.000Z`,
    ...overrides,
  };
}

const fold = (events: JobProgress[], start?: QueueView) => events.reduce<QueueView | undefined>(applyJobProgress, start);

describe(applyJobProgress.name, () => {
  it('starts a view from the first event, with the interface status string', () => {
    expect(applyJobProgress(undefined, event(1, { status: JobStatus.JOB_STATUS_QUEUED, totalItems: 0, message: 'waiting' }))).toEqual({
      queueId: 'q-1',
      accountId: 7,
      kind: 'asset-upload',
      status: 'Queued',
      totalItems: 0,
      totalProcessed: 0,
      message: 'waiting',
      sequence: 1,
      updatedAt: '2026-01-01T00:00:01.000Z',
    });
  });

  it.each([
    [JobStatus.JOB_STATUS_QUEUED, 'Queued'],
    [JobStatus.JOB_STATUS_PROCESSING, 'Processing'],
    [JobStatus.JOB_STATUS_COMPLETED, 'Completed'],
    [JobStatus.JOB_STATUS_FAILED, 'Failed'],
  ])('maps status %s to %s', (status, expected) => {
    expect(applyJobProgress(undefined, event(1, { status })).status).toBe(expected);
  });

  it('follows events in order through to completion', () => {
    const view = fold([
      event(1, { status: JobStatus.JOB_STATUS_QUEUED, totalItems: 0 }),
      event(2, { totalItems: 3, totalProcessed: 1 }),
      event(3, { totalItems: 3, totalProcessed: 2 }),
      event(4, { status: JobStatus.JOB_STATUS_COMPLETED, totalItems: 3, totalProcessed: 3, message: 'done' }),
    ]);
    expect(view).toMatchObject({ status: 'Completed', totalItems: 3, totalProcessed: 3, message: 'done', sequence: 4 });
  });

  it('gives the same view whatever order the events arrive in', () => {
    const events = [
      event(1, { status: JobStatus.JOB_STATUS_QUEUED, totalItems: 0 }),
      event(2, { totalProcessed: 4 }),
      event(3, { totalProcessed: 8, message: 'almost' }),
    ];
    const inOrder = fold(events);
    expect(fold([events[2], events[0], events[1]])).toEqual(inOrder);
    expect(fold([events[1], events[2], events[0]])).toEqual(inOrder);
  });

  it('ignores a duplicate of the last event, even with different content', () => {
    const view = fold([event(1), event(2, { totalProcessed: 5, message: 'five' })]);
    expect(applyJobProgress(view, event(2, { totalProcessed: 9, message: 'replayed' }))).toBe(view);
  });

  it('ignores stale events arriving after newer ones', () => {
    const view = fold([event(5, { totalProcessed: 6, message: 'six' })]);
    const after = applyJobProgress(view, event(3, { status: JobStatus.JOB_STATUS_QUEUED, totalProcessed: 2, message: 'old' }));
    expect(after).toBe(view);
    expect(after).toMatchObject({ status: 'Processing', totalProcessed: 6, message: 'six', sequence: 5 });
  });

  it('never lets totalProcessed go backwards, even on a newer event', () => {
    const view = fold([event(1, { totalProcessed: 7 }), event(2, { totalProcessed: 3, message: 'restarted count' })]);
    expect(view).toMatchObject({ totalProcessed: 7, message: 'restarted count', sequence: 2 });
  });

  it("takes the counts of a Completed that counted its items as the job's result, below what an earlier attempt had counted", () => {
    const view = fold([
      event(1, { totalItems: 0, totalProcessed: 9_799, message: 'reading' }),
      event(2, { status: JobStatus.JOB_STATUS_COMPLETED, totalItems: 50, totalProcessed: 50 }),
    ]);
    expect(view).toMatchObject({ status: 'Completed', totalItems: 50, totalProcessed: 50 });
    // A redelivery that finds the job done reports no counts: the known ones stay.
    const replayed = fold([
      event(1, { totalItems: 12, totalProcessed: 12 }),
      event(2, { status: JobStatus.JOB_STATUS_COMPLETED, totalItems: 0, totalProcessed: 0 }),
    ]);
    expect(replayed).toMatchObject({ status: 'Completed', totalItems: 12, totalProcessed: 12 });
  });

  it('keeps the known totalItems while a newer event is still counting (0)', () => {
    expect(fold([event(1, { totalItems: 12 }), event(2, { totalItems: 0, totalProcessed: 1 })])).toMatchObject({ totalItems: 12 });
  });

  it.each([
    ['Completed', JobStatus.JOB_STATUS_COMPLETED],
    ['Failed', JobStatus.JOB_STATUS_FAILED],
  ])('treats %s as final: a newer replayed event does not reopen the queue', (expected, status) => {
    const ended = fold([event(1), event(2, { status, totalProcessed: 10, message: 'ended' })]);
    const replayed = applyJobProgress(ended, event(3, { status: JobStatus.JOB_STATUS_PROCESSING, totalProcessed: 1 }));
    expect(replayed).toMatchObject({ status: expected, totalProcessed: 10, message: 'ended', sequence: 2 });
  });

  it('ignores an event claiming the queue for another account', () => {
    const view = fold([event(1)]);
    expect(applyJobProgress(view, event(2, { accountId: 8, totalProcessed: 9 }))).toBe(view);
  });

  it('keeps the previous status when an event carries an unknown one', () => {
    const view = fold([event(1), event(2, { status: JobStatus.JOB_STATUS_UNSPECIFIED, totalProcessed: 2 })]);
    expect(view).toMatchObject({ status: 'Processing', totalProcessed: 2, sequence: 2 });
    expect(applyJobProgress(undefined, event(1, { status: JobStatus.UNRECOGNIZED })).status).toBe('Queued');
  });

  it("refuses to fold an event of one queue into another queue's view", () => {
    expect(() => applyJobProgress(fold([event(1)]), event(2, { queueId: 'q-2' }))).toThrow(/q-2/);
  });
});
