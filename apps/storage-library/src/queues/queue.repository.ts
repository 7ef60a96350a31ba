import type { Knex } from 'knex';
import type { QueueStatus, QueueView } from '@platform/jobs';
import type { ServiceDatabase } from '@platform/mysql';

interface QueueRow {
  queue_id: string;
  account_id: number;
  kind: string;
  status: string;
  total_items: number;
  total_processed: number;
  message: string;
  sequence: number;
  updated_at: Date;
}

const toView = (row: QueueRow): QueueView => ({
  queueId: row.queue_id,
  accountId: Number(row.account_id),
  kind: row.kind,
  status: row.status as QueueStatus,
  totalItems: Number(row.total_items),
  totalProcessed: Number(row.total_processed),
  message: row.message,
  sequence: Number(row.sequence),
  updatedAt: row.updated_at.toISOString(),
});

const toRow = (view: QueueView) => ({
  queue_id: view.queueId,
  account_id: view.accountId,
  kind: view.kind,
  status: view.status,
  total_items: view.totalItems,
  total_processed: view.totalProcessed,
  message: view.message.slice(0, 2000),
  sequence: view.sequence,
  updated_at: new Date(view.updatedAt),
});

export class QueueRepository {
  constructor(private readonly db: ServiceDatabase) {}

  async find(queueId: string): Promise<QueueView | undefined> {
    const [row] = await this.db.execute<QueueRow>('SELECT * FROM queues WHERE queue_id = ?', [queueId]);
    return row && toView(row);
  }

  /** The row of a job just accepted, in the transaction that requests it. */
  async insert(trx: Knex.Transaction, view: QueueView): Promise<void> {
    await trx('queues').insert(toRow(view));
  }

  /** The account's jobs of a kind not yet Completed or Failed, in the transaction that would queue one more. */
  async countActive(trx: Knex.Transaction, accountId: number, kind: string): Promise<number> {
    const [row] = (await trx('queues').where({ account_id: accountId, kind }).whereIn('status', ['Queued', 'Processing']).count({ active: '*' })) as {
      active: number | string;
    }[];
    return Number(row.active);
  }

  /** Reads the view for update, so two deliveries of events of one queue fold one after the other. */
  async findForUpdate(trx: Knex.Transaction, queueId: string): Promise<QueueView | undefined> {
    const row = (await trx('queues').where({ queue_id: queueId }).forUpdate().first()) as QueueRow | undefined;
    return row && toView(row);
  }

  async save(trx: Knex.Transaction, view: QueueView): Promise<void> {
    await trx('queues').insert(toRow(view)).onConflict('queue_id').merge();
  }
}
