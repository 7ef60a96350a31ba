import { decodeJobProgress, JobStatus } from './job-progress.codec';
import { createJobProgressPublisher } from './job-progress.publisher';
import { jobAcceptedEntries } from './job-accepted';
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
