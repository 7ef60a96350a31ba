import type { AuditChangeEvent, AuditResourceType } from '@contracts/domain';
import { decodeJobProgress, jobProgressConsumerSpec, JobStatus } from '@platform/jobs';
import type { Logger } from '@platform/logging';
import { runConsumer, type Naming, type RunningConsumer } from '@platform/nats';
import { auditChangeConsumerSpec, startPeriodicTask, type BackgroundTask } from '@platform/service';
import type { NatsConnection } from 'nats';
import type { ServingPeers, ServingSnapshotService } from './serving-snapshot.service';

export const SERVING_AUDIT_DURABLE = 'content-creative-serving-changes';
export const SERVING_JOBS_DURABLE = 'content-creative-serving-jobs';

/**
 * Changes that never reach a snapshot. An export's row changes while it runs, but serving shows completed
 * exports only, and a completed export is a finished job (below); queued uploads and copies, cloud
 * services, webhooks and template bookmarks are nowhere in a snapshot.
 */
const NOT_SERVED: ReadonlySet<AuditResourceType> = new Set<AuditResourceType>([
  'export',
  'asset-library-upload',
  'cloud-copy',
  'cloud-service',
  'webhook',
  'template-bookmark',
]);

/**
 * The account whose serving an audit event may change; org-level resources (media channels) concern no
 * campaign's serving, and NOT_SERVED resources none at all (a running export would otherwise compile its
 * account's snapshots while the renderer draws).
 */
export function servingAuditAccount(data: Uint8Array): number | undefined {
  const event = JSON.parse(Buffer.from(data).toString('utf8')) as Partial<AuditChangeEvent>;
  if (event.resourceType !== undefined && NOT_SERVED.has(event.resourceType)) return undefined;
  return typeof event.accountId === 'number' ? event.accountId : undefined;
}

/** A finished job (an export, a feed run, an upload) may change what serving shows: its account is compiled again. */
function finishedJobAccount(data: Uint8Array): number | undefined {
  const progress = decodeJobProgress(data);
  return progress.status === JobStatus.JOB_STATUS_COMPLETED && progress.accountId > 0 ? progress.accountId : undefined;
}

export interface ServingRefresherOptions {
  nats: NatsConnection;
  names: Naming;
  logger: Logger;
  snapshots: ServingSnapshotService;
  /** Peers bound to a principal of the service itself, scoped to one account. */
  peersFor(accountId: number): ServingPeers;
  debounceMs: number;
  sweepMs: number;
}

/**
 * Keeps the serving snapshots current. Every committed change of every service is on the AUDIT stream
 * and every finished job on JOBS_PROGRESS; each marks its account, and after `debounceMs` of gathering
 * the account's campaigns are compiled again (a burst of edits compiles once). A message is acked once
 * its account is marked: a crash before the compile loses the mark, which the sweep (every campaign,
 * every `sweepMs`) makes good.
 */
export async function startServingRefresher(options: ServingRefresherOptions): Promise<BackgroundTask> {
  const { logger, snapshots } = options;
  const dirty = new Set<number>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const compileDirty = async () => {
    const accounts = [...dirty];
    dirty.clear();
    for (const accountId of accounts) {
      const stored = await snapshots.refreshAccount(accountId, options.peersFor(accountId));
      logger.debug({ accountId, stored }, 'serving snapshots compiled');
    }
  };
  const mark = (accountId: number | undefined) => {
    if (accountId === undefined) return;
    dirty.add(accountId);
    timer ??= setTimeout(() => {
      timer = undefined;
      // One compile at a time: a later mark waits for the compile in hand, then joins the next one.
      running = running.then(compileDirty).catch((error: unknown) => logger.warn({ err: error }, 'serving snapshots not compiled'));
    }, options.debounceMs);
  };

  const jsm = await options.nats.jetstreamManager();
  const js = options.nats.jetstream();
  const consumers: RunningConsumer[] = [
    await runConsumer({
      js,
      jsm,
      spec: options.names.consumerSpec(auditChangeConsumerSpec(SERVING_AUDIT_DURABLE)),
      logger,
      handler: async ({ data }) => mark(servingAuditAccount(data)),
    }),
    await runConsumer({
      js,
      jsm,
      spec: options.names.consumerSpec(jobProgressConsumerSpec(SERVING_JOBS_DURABLE)),
      logger,
      handler: async ({ data }) => mark(finishedJobAccount(data)),
    }),
  ];
  const sweep =
    options.sweepMs > 0
      ? startPeriodicTask({
          intervalMs: options.sweepMs,
          run: async () => {
            for (const accountId of await snapshots.accountsWithMaps()) mark(accountId);
          },
          onError: (error) => logger.warn({ err: error }, 'serving snapshot sweep failed'),
        })
      : undefined;
  // A start compiles everything once, so a snapshot lost with the bucket comes back without waiting for the sweep.
  for (const accountId of await snapshots.accountsWithMaps()) mark(accountId);

  return {
    async stop() {
      await sweep?.stop();
      await Promise.all(consumers.map((c) => c.stop()));
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
