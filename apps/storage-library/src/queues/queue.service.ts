import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { problem } from '@platform/errors';
import { JOB_CONCURRENCY_CAPS } from '@contracts/domain';
import { admitJob, applyJobProgress, jobRequestSubject, type JobProgress, type JobRequest, type QueueView } from '@platform/jobs';
import { withTransaction } from '@platform/mysql';
import { recordChange, type EventOutbox } from '@platform/service';
import type { AuditResourceType } from '@contracts/domain';
import type { QueueRepository } from './queue.repository';

/**
 * Told of each status a job reaches, in the transaction that records it, so what it writes (webhook
 * deliveries) commits with the change or not at all.
 */
export type JobStatusListener = (trx: Knex.Transaction, view: QueueView) => Promise<void>;

const queueNotFound = (queueId: string) => problem('QUEUE_NOT_FOUND', `Queue ${queueId} was not found.`);

/**
 * Queues of asynchronous jobs: accepting a job (its queue row and its request, in one transaction)
 * and the view folded from the workers' progress events.
 */
export class QueueService {
  constructor(
    private readonly knex: Knex,
    private readonly events: EventOutbox,
    private readonly queues: QueueRepository,
    private readonly now: () => Date = () => new Date(),
    /** Jobs per kind an account may have queued or running at once (JOB_CONCURRENCY_CAPS). */
    private readonly caps: Readonly<Record<string, number>> = JOB_CONCURRENCY_CAPS,
    private readonly statusChanged: JobStatusListener = async () => undefined,
  ) {}

  /** A queue the caller's accounts own; any other id is not found, whether it exists or not. */
  async get(accountIds: readonly number[], queueId: string): Promise<QueueView> {
    const view = await this.queues.find(queueId);
    if (!view || !accountIds.includes(view.accountId)) throw queueNotFound(queueId);
    return view;
  }

  /**
   * Accepts a job: the Queued row and the request message commit together, so a worker never gets a
   * job the queue view does not know, and a job is never shown that no worker will get. An account
   * already running its cap of jobs of the kind is refused (429 JOB_LIMIT_REACHED) and nothing is queued.
   * A job a caller asked for names its `audit` record (the request as the trail may keep it, never the
   * credentials the payload carries), recorded as the create of the job, its queue id the resource id.
   */
  async enqueue(
    kind: string,
    accountId: number,
    payload: unknown,
    audit?: { resourceType: AuditResourceType; after: Record<string, unknown> },
  ): Promise<string> {
    const queueId = randomUUID();
    const request: JobRequest = { queueId, accountId, kind, payload };
    await withTransaction(this.knex, async (trx: Knex.Transaction) => {
      await admitJob(trx, { accountId, kind, cap: this.caps[kind], countActive: (t) => this.queues.countActive(t, accountId, kind) });
      const view: QueueView = {
        queueId,
        accountId,
        kind,
        status: 'Queued',
        totalItems: 0,
        totalProcessed: 0,
        message: 'Queued',
        sequence: 0,
        updatedAt: this.now().toISOString(),
      };
      await this.queues.insert(trx, view);
      await this.statusChanged(trx, view);
      await this.events.record(trx, { subject: jobRequestSubject(kind), msgId: `job:${queueId}`, payload: request });
      if (audit)
        await recordChange(trx, this.events, { resourceType: audit.resourceType, resourceId: queueId, action: 'create', accountId, after: audit.after });
    });
    return queueId;
  }

  /**
   * Folds one progress event; duplicates, stale events and events after the end change nothing. A
   * new status (a first event counts) is told to the listener in the same transaction; progress
   * within a status (totalProcessed moving) is not.
   */
  async apply(event: JobProgress): Promise<void> {
    await withTransaction(this.knex, async (trx: Knex.Transaction) => {
      const current = await this.queues.findForUpdate(trx, event.queueId);
      const next = applyJobProgress(current, event);
      if (next === current) return;
      await this.queues.save(trx, next);
      if (next.status !== current?.status) await this.statusChanged(trx, next);
    });
  }
}
