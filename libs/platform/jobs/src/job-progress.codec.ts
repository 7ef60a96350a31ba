import { jobsV1 } from '@contracts/proto';

export type JobProgress = jobsV1.JobProgress;
export const JobStatus = jobsV1.JobStatus;
export type JobStatus = jobsV1.JobStatus;

export function encodeJobProgress(event: JobProgress): Uint8Array {
  return jobsV1.JobProgress.encode(event).finish();
}

export function decodeJobProgress(data: Uint8Array): JobProgress {
  return jobsV1.JobProgress.decode(data);
}
