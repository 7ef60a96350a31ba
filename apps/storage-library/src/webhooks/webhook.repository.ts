import type { Knex } from 'knex';
import type { WebhookDeliveryStatus } from '@contracts/domain';
import type { QueueStatus } from '@platform/jobs';
import { listWithTotalQuery, type Page, type PageWindow, type ServiceDatabase } from '@platform/mysql';
import { eventIdOf, type AttemptOutcome, type JobStatusChange, type WebhookDeliveryRecord, type WebhookRecord } from './webhook.model';

interface WebhookRow {
  id: number;
  account_id: number;
  url: string;
  events: string;
  description: string;
  enabled: number | boolean;
  sealed_secret: Buffer;
  created_at: Date;
  updated_at: Date;
}

interface DeliveryRow {
  id: number;
  webhook_id: number;
  account_id: number;
  event_id: string;
  queue_id: string;
  kind: string;
  job_status: string;
  total_items: number;
  total_processed: number;
  message: string;
  occurred_at: Date;
  status: string;
  attempts: number;
  last_http_status: number | null;
  last_error: string | null;
  next_attempt_at: Date | null;
  replay_of: number | null;
  created_at: Date;
  updated_at: Date;
}

const toWebhook = (row: WebhookRow): WebhookRecord => ({
  id: Number(row.id),
  accountId: Number(row.account_id),
  url: row.url,
  events: row.events.split(','),
  description: row.description,
  enabled: Boolean(row.enabled),
  sealedSecret: row.sealed_secret,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

const toDelivery = (row: DeliveryRow): WebhookDeliveryRecord => ({
  id: Number(row.id),
  webhookId: Number(row.webhook_id),
  accountId: Number(row.account_id),
  eventId: row.event_id,
  change: {
    queueId: row.queue_id,
    accountId: Number(row.account_id),
    kind: row.kind,
    status: row.job_status as QueueStatus,
    totalItems: Number(row.total_items),
    totalProcessed: Number(row.total_processed),
    message: row.message,
    occurredAt: row.occurred_at.toISOString(),
  },
  status: row.status as WebhookDeliveryStatus,
  attempts: Number(row.attempts),
  lastHttpStatus: row.last_http_status === null ? null : Number(row.last_http_status),
  lastError: row.last_error,
  nextAttemptAt: row.next_attempt_at ? row.next_attempt_at.toISOString() : null,
  replayOf: row.replay_of === null ? null : Number(row.replay_of),
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

const changeColumns = (change: JobStatusChange) => ({
  queue_id: change.queueId,
  account_id: change.accountId,
  kind: change.kind,
  job_status: change.status,
  total_items: change.totalItems,
  total_processed: change.totalProcessed,
  message: change.message.slice(0, 2000),
  occurred_at: new Date(change.occurredAt),
});

/** Error texts are stored cut to their column. */
const ERROR_MAX = 500;

/** Webhooks, their deliveries and the delivery log: every statement of the feature and of its delivery loop. */
export class WebhookRepository {
  constructor(private readonly db: ServiceDatabase) {}

  async insert(trx: Knex.Transaction, webhook: Pick<WebhookRecord, 'accountId' | 'url' | 'events' | 'description' | 'sealedSecret'>): Promise<number> {
    const [id] = await trx('webhooks').insert({
      account_id: webhook.accountId,
      url: webhook.url,
      events: webhook.events.join(','),
      description: webhook.description,
      enabled: true,
      sealed_secret: webhook.sealedSecret,
    });
    return Number(id);
  }

  async find(accountId: number, id: number): Promise<WebhookRecord | undefined> {
    const [row] = await this.db.execute<WebhookRow>('SELECT * FROM webhooks WHERE account_id = ? AND id = ?', [accountId, id]);
    return row && toWebhook(row);
  }

  /** The webhook as a change in `trx` sees it, row locked, for the audit trail's before and after. */
  async findForChange(trx: Knex.Transaction, accountId: number, id: number): Promise<WebhookRecord | undefined> {
    const row = (await trx('webhooks').where({ account_id: accountId, id }).forUpdate().first()) as WebhookRow | undefined;
    return row && toWebhook(row);
  }

  list(accountId: number, window: PageWindow): Promise<Page<WebhookRecord>> {
    return listWithTotalQuery(this.db.knex('webhooks').select('*').where({ account_id: accountId }).orderBy('id'), window, toWebhook);
  }

  /** Whether a webhook of the account was there to change. */
  async setEnabled(trx: Knex.Transaction, accountId: number, id: number, enabled: boolean): Promise<boolean> {
    const changed = await trx('webhooks')
      .where({ account_id: accountId, id })
      .update({ enabled, updated_at: trx.fn.now(3) });
    return changed > 0;
  }

  /** The deliveries still to be sent end as failed, with the reason; an attempt in flight records its own outcome. */
  async failOpenDeliveries(trx: Knex.Transaction, webhookId: number, reason: string): Promise<void> {
    await trx('webhook_deliveries')
      .where({ webhook_id: webhookId })
      .whereIn('status', ['pending', 'retrying'])
      .update({ status: 'failed', last_error: reason, next_attempt_at: null, updated_at: trx.fn.now(3) });
  }

  async delete(trx: Knex.Transaction, accountId: number, id: number): Promise<boolean> {
    const deleted = await trx('webhooks').where({ account_id: accountId, id }).delete();
    if (deleted === 0) return false;
    await trx('webhook_delivery_attempts')
      .whereIn('delivery_id', trx('webhook_deliveries').select('id').where({ webhook_id: id }))
      .delete();
    await trx('webhook_deliveries').where({ webhook_id: id }).delete();
    return true;
  }

  /** The account's enabled webhooks subscribed to a job kind, read in the transaction of the change. */
  async subscribers(trx: Knex.Transaction, accountId: number, kind: string): Promise<number[]> {
    const rows: { id: number; events: string }[] = await trx('webhooks').select('id', 'events').where({ account_id: accountId, enabled: true });
    return rows.filter((row) => row.events.split(',').some((event) => event === '*' || event === kind)).map((row) => Number(row.id));
  }

  /**
   * One pending delivery per webhook, in the caller's transaction. A change already recorded for a
   * webhook (the same queue reaching the same status again) is ignored by the unique key.
   */
  async insertEvent(trx: Knex.Transaction, webhookIds: readonly number[], change: JobStatusChange): Promise<void> {
    if (webhookIds.length === 0) return;
    const eventId = eventIdOf(change);
    await trx('webhook_deliveries')
      .insert(
        webhookIds.map((webhookId) => ({
          webhook_id: webhookId,
          event_id: eventId,
          dedupe_key: eventId,
          ...changeColumns(change),
          status: 'pending',
          next_attempt_at: trx.fn.now(3),
        })),
      )
      .onConflict(['webhook_id', 'dedupe_key'])
      .ignore();
  }

  /** A new delivery of an earlier one's event; replays carry no dedupe key, so each is sent. */
  async insertReplay(original: WebhookDeliveryRecord): Promise<number> {
    const [id] = await this.db.knex('webhook_deliveries').insert({
      webhook_id: original.webhookId,
      event_id: original.eventId,
      dedupe_key: null,
      ...changeColumns(original.change),
      status: 'pending',
      next_attempt_at: this.db.knex.fn.now(3),
      replay_of: original.id,
    });
    return Number(id);
  }

  async findDelivery(webhookId: number, id: number): Promise<WebhookDeliveryRecord | undefined> {
    const [row] = await this.db.execute<DeliveryRow>('SELECT * FROM webhook_deliveries WHERE webhook_id = ? AND id = ?', [webhookId, id]);
    return row && toDelivery(row);
  }

  /** Newest first. */
  listDeliveries(webhookId: number, window: PageWindow): Promise<Page<WebhookDeliveryRecord>> {
    return listWithTotalQuery(this.db.knex('webhook_deliveries').select('*').where({ webhook_id: webhookId }).orderBy('id', 'desc'), window, toDelivery);
  }

  // The delivery loop's statements.

  /**
   * Claims the oldest due delivery, if any, in `trx`: the caller's short transaction at READ COMMITTED
   * (a locking read there locks the row it returns and no gap, so the inserts of status changes never
   * wait on it), with SKIP LOCKED so replicas claim different rows. The claim counts the attempt and
   * pushes the due time past it by `leaseMs`: the row is nobody else's until then, and is taken again
   * after it if this replica dies mid-attempt.
   */
  async claimDue(trx: Knex.Transaction, leaseMs: number): Promise<WebhookDeliveryRecord | undefined> {
    const row = (await trx('webhook_deliveries')
      .select('*')
      .whereIn('status', ['pending', 'retrying'])
      .where('next_attempt_at', '<=', trx.fn.now(3))
      .orderBy([{ column: 'next_attempt_at' }, { column: 'id' }])
      .limit(1)
      .forUpdate()
      .skipLocked()
      .first()) as DeliveryRow | undefined;
    if (!row) return undefined;
    await trx('webhook_deliveries')
      .where({ id: row.id })
      .update({
        attempts: trx.raw('attempts + 1'),
        next_attempt_at: trx.raw('NOW(3) + INTERVAL ? MICROSECOND', [leaseMs * 1_000]),
        updated_at: trx.fn.now(3),
      });
    return toDelivery({ ...row, attempts: Number(row.attempts) + 1 });
  }

  /** The webhook a claimed delivery goes to, whatever its account (the loop serves every account). */
  async findForDelivery(id: number): Promise<WebhookRecord | undefined> {
    const [row] = await this.db.execute<WebhookRow>('SELECT * FROM webhooks WHERE id = ?', [id]);
    return row && toWebhook(row);
  }

  /**
   * Records an attempt's outcome and the delivery's next state, only while the claim is still this
   * attempt's (a lease that ran out and was claimed again counts a higher attempt): a late writer
   * changes nothing. `retryInMs` null ends the delivery with `status`.
   */
  async recordAttempt(
    trx: Knex.Transaction,
    delivery: Pick<WebhookDeliveryRecord, 'id' | 'attempts'>,
    outcome: AttemptOutcome,
    next: { status: WebhookDeliveryStatus; retryInMs: number | null },
  ): Promise<boolean> {
    const updated = await trx('webhook_deliveries')
      .where({ id: delivery.id, attempts: delivery.attempts })
      .whereIn('status', ['pending', 'retrying'])
      .update({
        status: next.status,
        last_http_status: outcome.httpStatus,
        last_error: outcome.error?.slice(0, ERROR_MAX) ?? null,
        next_attempt_at: next.retryInMs === null ? null : trx.raw('NOW(3) + INTERVAL ? MICROSECOND', [next.retryInMs * 1_000]),
        updated_at: trx.fn.now(3),
      });
    if (updated === 0) return false;
    await trx('webhook_delivery_attempts').insert({
      delivery_id: delivery.id,
      attempt: delivery.attempts,
      http_status: outcome.httpStatus,
      error: outcome.error?.slice(0, ERROR_MAX) ?? null,
      duration_ms: Math.round(outcome.durationMs),
    });
    return true;
  }

  /** The delivery log of one delivery, oldest attempt first. */
  async attempts(deliveryId: number): Promise<{ attempt: number; httpStatus: number | null; error: string | null }[]> {
    const rows = await this.db.execute<{ attempt: number; http_status: number | null; error: string | null }>(
      'SELECT attempt, http_status, error FROM webhook_delivery_attempts WHERE delivery_id = ? ORDER BY attempt, id',
      [deliveryId],
    );
    return rows.map((row) => ({ attempt: Number(row.attempt), httpStatus: row.http_status === null ? null : Number(row.http_status), error: row.error }));
  }
}
