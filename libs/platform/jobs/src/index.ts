/**
 * The job-progress contract: workers publish JobProgress events with createJobProgressPublisher,
 * storage-library folds them with applyJobProgress into the view behind GET /v2/queues/:queueId.
 */
export { JOB_PROGRESS_STREAM, jobProgressSubject, jobProgressConsumerSpec } from './job-progress.stream';
export { encodeJobProgress, decodeJobProgress, JobStatus, type JobProgress } from './job-progress.codec';
export { createJobProgressPublisher, type JobProgressPublisher, type JobProgressPublisherOptions, type JobProgressReport } from './job-progress.publisher';
export { applyJobProgress, queueStatusOf, type QueueStatus, type QueueView } from './queue-view.reducer';
export {
  JOB_REQUEST_STREAM,
  jobRequestSubject,
  prefixedJobRequestSubject,
  jobRequestConsumerSpec,
  encodeJobRequest,
  decodeJobRequest,
  type JobRequest,
} from './job-request';
export { openCustomerBucket, CustomerEndpointRefused, awsEndpoint, s3CodeOf, type CustomerBucketTarget } from './customer-bucket';
export {
  runJobConsumer,
  directSink,
  JobFailed,
  JobHandedBack,
  type JobHandler,
  type JobProgressSink,
  type JobResult,
  type RunJobConsumerOptions,
} from './job-runner';
export { announceQueued, jobAcceptedEntries, jobEndedUnstartedEntry, type JobOutboxEntry, type QueueViewAnnouncer } from './job-accepted';
// The per-account cap on concurrent jobs lives with the transactions it runs in; named here too, beside the rest of the job pattern.
export { admitJob, jobAdmissionMigration, type JobAdmission } from '@platform/mysql';
