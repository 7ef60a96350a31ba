import { counter, gauge, histogram, JOB_BUCKETS, lazily } from '@platform/telemetry';

/**
 * How a delivery of a job ended: its terminal states, a failure that will be retried, a job given back at
 * shutdown, or a job given up unrun because no earlier delivery reached an outcome.
 */
export type JobOutcome = 'completed' | 'failed' | 'retried' | 'handed-back' | 'given-up';

const runs = lazily(() =>
  counter({
    name: 'job_runs_total',
    help: 'Job deliveries run by this worker, by kind and outcome (completed, failed, retried, handed-back, given-up)',
    labelNames: ['kind', 'outcome'],
  }),
);
const runSeconds = lazily(() =>
  histogram({
    name: 'job_run_duration_seconds',
    help: 'Time one delivery of a job ran, by kind and outcome',
    labelNames: ['kind', 'outcome'],
    buckets: JOB_BUCKETS,
  }),
);
const queueWait = lazily(() =>
  histogram({
    name: 'job_queue_wait_seconds',
    help: 'Time from a job request reaching the stream to a worker starting it (first delivery)',
    labelNames: ['kind'],
    buckets: JOB_BUCKETS,
  }),
);

/** Job requests not yet handed to any worker of a kind, read from JetStream when scraped. */
const pendingProbes = new Map<string, () => Promise<number>>();
const pending = lazily(() =>
  gauge({
    name: 'job_queue_pending',
    help: 'Job requests waiting in the stream for a worker of this kind (the consumer backlog)',
    labelNames: ['kind'],
    async collect() {
      this.reset();
      for (const [kind, probe] of pendingProbes) {
        try {
          this.set({ kind }, await probe());
        } catch {
          // NATS unreachable at scrape time: leave the kind out rather than fail the whole scrape.
        }
      }
    },
  }),
);

export function observeJobRun(kind: string, outcome: JobOutcome, seconds: number): void {
  runs().inc({ kind, outcome });
  runSeconds().observe({ kind, outcome }, seconds);
}

/** A job ended Failed without running (every delivery before ended with no outcome): counted, no duration. */
export function observeJobGivenUp(kind: string): void {
  runs().inc({ kind, outcome: 'given-up' });
}

export function observeQueueWait(kind: string, seconds: number): void {
  queueWait().observe({ kind }, Math.max(0, seconds));
}

/** Reports a kind's backlog while its consumer runs; the returned function stops reporting it. */
export function reportPendingJobs(kind: string, probe: () => Promise<number>): () => void {
  pending();
  pendingProbes.set(kind, probe);
  return () => {
    if (pendingProbes.get(kind) === probe) pendingProbes.delete(kind);
  };
}
