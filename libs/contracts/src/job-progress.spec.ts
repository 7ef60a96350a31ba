import { jobsV1 } from './index';

describe('JobProgress contract', () => {
  it('round-trips through the protobuf wire format', () => {
    const event: jobsV1.JobProgress = {
      queueId: 'q-1',
      accountId: 42,
      kind: 'asset-upload',
      status: jobsV1.JobStatus.JOB_STATUS_PROCESSING,
      totalItems: 10,
      totalProcessed: 3,
      message: 'extracting',
      sequence: 7,
      occurredAt: '2026-11-22T10:00:00.000Z',
    };
    const bytes = jobsV1.JobProgress.encode(event).finish();
    expect(jobsV1.JobProgress.decode(bytes)).toEqual(event);
  });
});
