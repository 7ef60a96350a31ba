import { decodeJobProgress, JobStatus } from './job-progress.codec';
import { createJobProgressPublisher } from './job-progress.publisher';
import { jobAcceptedEntries, jobEndedUnstartedEntry } from './job-accepted';
import { applyJobProgress } from './queue-view.reducer';
import type { JetStreamClient } from 'nats';

describe(jobAcceptedEntries.name, () => {
  const request = { queueId: 'q-7', accountId: 12, kind: 'feed-ingest', payload: { assetSourceId: 3 } };

  it('records the Queued progress event (protobuf) and the request (JSON), each under its unprefixed subject and message id', () => {
    const { entries, queued } = jobAcceptedEntries(request, Date.parse('2026-11-25T01:00:00.000Z'));
    expect(entries.map(({ subject, msgId }) => ({ subject, msgId }))).toEqual([
      { subject: 'jobs.progress.feed-ingest', msgId: `q-7:${queued.sequence}` },
      { subject: 'jobs.requested.feed-ingest', msgId: 'job:q-7' },
    ]);
    expect(decodeJobProgress(entries[0].encoded as Uint8Array)).toEqual(queued);
    expect(queued).toMatchObject({ status: JobStatus.JOB_STATUS_QUEUED, accountId: 12, message: 'Queued', occurredAt: '2026-11-25T01:00:00.000Z' });
    expect(entries[1].payload).toEqual(request);
    // The request wakes the relay at commit; the Queued event rides along (the queue view had it at once).
    expect(entries.map((e) => e.relayAtCommit === true)).toEqual([false, true]);
  });

  it('is out-sequenced by the first report of the run, even from a replica whose clock is behind', async () => {
    const acceptedAt = Date.parse('2026-11-25T01:00:00.000Z');
    const { queued } = jobAcceptedEntries(request, acceptedAt);
    const js = { publish: async () => ({ duplicate: false, seq: 1, stream: 's' }) } as unknown as JetStreamClient;
    const publisher = createJobProgressPublisher({ js, prefix: '', kind: 'feed-ingest', clock: () => acceptedAt - 30_000 });
    const first = await publisher.report('q-7', 12, { status: JobStatus.JOB_STATUS_PROCESSING, totalItems: 0, totalProcessed: 0 });
    expect(first.sequence).toBeGreaterThan(queued.sequence);
  });
});

describe(jobEndedUnstartedEntry.name, () => {
  const request = { queueId: 'q-8', accountId: 12, kind: 'feed-ingest', payload: { assetSourceId: 3 } };

  it('ends the queue Failed after its Queued event, and a later report of the worker does not reopen it', async () => {
    const acceptedAt = Date.parse('2026-11-25T01:00:00.000Z');
    const { queued } = jobAcceptedEntries(request, acceptedAt);
    const entry = jobEndedUnstartedEntry(request, acceptedAt + 500, 'Cancelled by the owner.');
    expect(entry).toMatchObject({ subject: 'jobs.progress.feed-ingest', relayAtCommit: true });
    const ended = decodeJobProgress(entry.encoded as Uint8Array);
    expect(entry.msgId).toBe(`q-8:${ended.sequence}`);

    let view = applyJobProgress(undefined, queued);
    view = applyJobProgress(view, ended);
    expect(view).toMatchObject({ status: 'Failed', message: 'Cancelled by the owner.' });
    // The worker reaches the request later and reports it running: the queue stays ended.
    const js = { publish: async () => ({ duplicate: false, seq: 1, stream: 's' }) } as unknown as JetStreamClient;
    const publisher = createJobProgressPublisher({ js, prefix: '', kind: 'feed-ingest', clock: () => acceptedAt + 1_000 });
    const late = await publisher.report('q-8', 12, { status: JobStatus.JOB_STATUS_PROCESSING, totalItems: 0, totalProcessed: 0 });
    expect(applyJobProgress(view, late)).toBe(view);
  });
});
