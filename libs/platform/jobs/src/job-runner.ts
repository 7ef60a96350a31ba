import type { Logger } from '@platform/logging';
import { HandBack, runConsumer, type Naming, type RunningConsumer } from '@platform/nats';
import type { NatsConnection } from 'nats';
import { JobStatus } from './job-progress.codec';
import { createJobProgressPublisher } from './job-progress.publisher';
import { observeJobGivenUp, observeJobRun, observeQueueWait, reportPendingJobs, type JobOutcome } from './job-metrics';
import { decodeJobRequest, jobRequestConsumerSpec, type JobRequest } from './job-request';

/** A failure retrying cannot fix (a zip bomb, a refused name): the job ends Failed at once with this message. */
export class JobFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JobFailed';
  }
}

/**
 * Thrown by a job that stopped because its worker is shutting down (`sink.stopping`), having left
 * nothing that a run from the start would not redo: the runner says so on the queue and gives the job
 * back at once to another worker, where it starts over. Not a failure: no terminal state, no retry delay.
 */
export class JobHandedBack extends Error {
  constructor(message = 'The worker running this job is shutting down.') {
    super(message);
    this.name = 'JobHandedBack';
  }
}

/** How a job reports progress while it runs; the runner reports the start and the one terminal state. */
export interface JobProgressSink {
  progress(totalProcessed: number, totalItems: number, message?: string): Promise<void>;
  /**
   * Runs `wait` (a wait on something outside this job, such as a lock a run on another replica holds)
   * without holding one of the runner's `concurrency` slots, so other jobs run meanwhile; resolves with
   * its result once a slot is free again. The delivery stays this job's throughout.
   */
  idle<T>(wait: () => Promise<T>): Promise<T>;
  /**
   * Aborted when the worker is shutting down: a long job that can start over may stop then and throw
   * `JobHandedBack` instead of keeping the shutdown waiting. On a job's last delivery it never aborts
   * (a hand back would leave the job no delivery to end in): that job runs on as any other would.
   */
  stopping: AbortSignal;
}

/**
 * A sink for a handler run outside the runner (a test, a tool): progress goes to `progress`, an idle
 * wait just runs, and `stopping` is the given signal (by default one that never aborts).
 */
export function directSink(progress: JobProgressSink['progress'] = async () => undefined, stopping = new AbortController().signal): JobProgressSink {
  return { progress, idle: (wait) => wait(), stopping };
}

/** What a finished job reports as its terminal (Completed) state. */
export interface JobResult {
  totalItems: number;
  totalProcessed: number;
  message: string;
}

export interface JobHandler<P = unknown> {
  /** The job kind: its request subject and its progress subject. */
  kind: string;
  /**
   * Does the job. Must be safe to run again from the start (a redelivery after a crash does):
   * write deterministic keys, and make each write all-or-nothing.
   */
  run(job: JobRequest<P>, sink: JobProgressSink): Promise<JobResult>;
  /**
   * Runs once the terminal state is stored (Completed or Failed), before the ack: the place to drop
   * inputs the job no longer needs (a staged upload). A crash before it re-runs the whole job, which
   * then still finds its inputs. Failures are logged, not retried.
   */
  cleanup?(job: JobRequest<P>): Promise<void>;
  /**
   * Runs when the job ends Failed (a JobFailed at once, any other error after the last delivery),
   * before the Failed state is reported: the place to tell the service that owns the job why. Its
   * own failure is logged, not retried: a poison job must still end, not loop.
   */
  failed?(job: JobRequest<P>, message: string): Promise<void>;
}

export interface RunJobConsumerOptions {
  nats: NatsConnection;
  names: Naming;
  logger: Logger;
  /** Durable consumer name; one per worker kind, shared by its replicas. */
  durable: string;
  handler: JobHandler;
  /** Deliveries before a failing job is given up as Failed (transient errors are retried until then). */
  maxDeliver?: number;
  /** Jobs one process runs at once (a job waiting in `sink.idle` is not counted). */
  concurrency?: number;
  /** How long a delivery may go without a sign of life before another worker gets the job (see jobRequestConsumerSpec). */
  ackWaitMs?: number;
}

/**
 * The job pattern every worker follows: a durable consumer of one kind's requests; Processing
 * reported when a delivery starts; exactly one terminal state per job, Completed when run resolves,
 * Failed at once for a JobFailed, and Failed after the last delivery for any other error (earlier
 * ones nak and retry). The message is acked only after the terminal state is stored, so a crash
 * anywhere re-runs the job, which is why run must be repeatable.
 */
export async function runJobConsumer({
  nats,
  names,
  logger,
  durable,
  handler,
  maxDeliver = 5,
  concurrency = 2,
  ackWaitMs,
}: RunJobConsumerOptions): Promise<RunningConsumer> {
  const publisher = createJobProgressPublisher({ js: nats.jetstream(), prefix: names.prefix, kind: handler.kind });
  const log = logger.child({ component: 'job-runner', kind: handler.kind });
  const cleanup = async (job: JobRequest) => {
    try {
      await handler.cleanup?.(job);
    } catch (error) {
      log.warn({ err: error, queueId: job.queueId }, 'job cleanup failed');
    }
  };
  /** The one terminal Failed of a job given up: the handler's own record first, then the queue, then its clean-up. */
  const giveUp = async (job: JobRequest, message: string, last: { totalItems: number; totalProcessed: number }) => {
    try {
      await handler.failed?.(job, message);
    } catch (hookError) {
      log.warn({ err: hookError, queueId: job.queueId }, 'job failure hook failed');
    }
    await publisher.report(job.queueId, job.accountId, { status: JobStatus.JOB_STATUS_FAILED, ...last, message });
    await cleanup(job);
  };
  const jsm = await nats.jetstreamManager();
  const spec = names.consumerSpec(jobRequestConsumerSpec(durable, handler.kind, maxDeliver, ackWaitMs));
  const consumer = await runConsumer({
    js: nats.jetstream(),
    jsm,
    spec,
    logger,
    batch: concurrency,
    fetchExpiresMs: 1_000,
    retryBackoff: { initialMs: 500, maxMs: 10_000 },
    // Every delivery ended with no outcome (the worker died or handed the job back each time): the job
    // still ends Failed, once, rather than stay Processing with its slot and its source's turn taken.
    onExhausted: async ({ data, deliveryCount }) => {
      let job: JobRequest;
      try {
        job = decodeJobRequest(data);
      } catch (error) {
        // Nothing to end: the message goes to the dead letters as it is.
        log.error({ err: error, deliveryCount }, 'job request given up unread: it does not decode');
        return;
      }
      log.warn({ queueId: job.queueId, deliveryCount }, 'job given up: no attempt reached an outcome');
      await giveUp(job, `Failed: each of its ${maxDeliver} attempts stopped before it ended (its worker stopped or restarted).`, {
        totalItems: 0,
        totalProcessed: 0,
      });
      observeJobGivenUp(handler.kind);
    },
    handler: async ({ data, deliveryCount, publishedAt, idle, stopping }) => {
      const started = Date.now();
      const ran = (outcome: JobOutcome) => observeJobRun(handler.kind, outcome, (Date.now() - started) / 1000);
      if (deliveryCount === 1) observeQueueWait(handler.kind, (started - publishedAt.getTime()) / 1000);
      const job = decodeJobRequest(data);
      const report = (status: JobStatus, totalItems: number, totalProcessed: number, message: string) =>
        publisher.report(job.queueId, job.accountId, { status, totalItems, totalProcessed, message });
      let last = { totalItems: 0, totalProcessed: 0 };
      const sink: JobProgressSink = {
        progress: async (totalProcessed, totalItems, message = '') => {
          last = { totalItems, totalProcessed };
          await report(JobStatus.JOB_STATUS_PROCESSING, totalItems, totalProcessed, message);
        },
        idle,
        stopping: deliveryCount < maxDeliver ? stopping : new AbortController().signal,
      };
      log.info({ queueId: job.queueId, deliveryCount }, 'job started');
      await report(JobStatus.JOB_STATUS_PROCESSING, 0, 0, deliveryCount > 1 ? `Processing (attempt ${deliveryCount})` : 'Processing');
      let result: JobResult;
      try {
        result = await handler.run(job, sink);
      } catch (error) {
        if (error instanceof JobHandedBack) {
          log.info({ queueId: job.queueId, deliveryCount }, 'job handed back: the worker is shutting down');
          // Said on the queue when it can be; the job goes back either way.
          await report(
            JobStatus.JOB_STATUS_PROCESSING,
            last.totalItems,
            last.totalProcessed,
            `${error.message} Another worker takes the job over and starts it again.`,
          ).catch((reportError: unknown) => log.warn({ err: reportError, queueId: job.queueId }, 'hand back not reported'));
          ran('handed-back');
          throw new HandBack(error.message);
        }
        if (!(error instanceof JobFailed) && deliveryCount < maxDeliver) {
          log.warn({ err: error, queueId: job.queueId, deliveryCount }, 'job failed; it will be retried');
          ran('retried');
          throw error;
        }
        const message = error instanceof JobFailed ? error.message : `Failed after ${deliveryCount} attempts.`;
        log.warn({ err: error, queueId: job.queueId }, 'job failed');
        await giveUp(job, message, last);
        ran('failed');
        return;
      }
      await report(JobStatus.JOB_STATUS_COMPLETED, result.totalItems, result.totalProcessed, result.message);
      await cleanup(job);
      ran('completed');
      log.info({ queueId: job.queueId, deliveryCount, totalItems: result.totalItems, durationMs: Date.now() - started }, 'job completed');
    },
  });
  const stopReporting = reportPendingJobs(handler.kind, async () => (await jsm.consumers.info(spec.stream, spec.durable)).num_pending);
  return {
    stop: async () => {
      stopReporting();
      await consumer.stop();
    },
  };
}
