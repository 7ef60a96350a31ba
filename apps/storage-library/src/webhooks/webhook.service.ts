import type { Knex } from 'knex';
import { effectivePage, WEBHOOK_ALL_EVENTS, WEBHOOK_JOB_KINDS, WEBHOOK_LIMITS } from '@contracts/domain';
import { type FieldError, problem } from '@platform/errors';
import type { QueueView } from '@platform/jobs';
import { withTransaction, type Page } from '@platform/mysql';
import type { SecretBox } from '@platform/secrets';
import { recordChange, type EventOutbox } from '@platform/service';
import { assertNoErrors } from '../asset-library/path-rules';
import type { WebhookDeliveryRecord, WebhookInput, WebhookRecord } from './webhook.model';
import type { WebhookRepository } from './webhook.repository';
import { newWebhookSecret } from './webhook-signature';

const webhookNotFound = (id: number) => problem('WEBHOOK_NOT_FOUND', `Webhook ${id} was not found.`);
const deliveryNotFound = (id: number) => problem('WEBHOOK_DELIVERY_NOT_FOUND', `Webhook delivery ${id} was not found.`);

/** Why the deliveries still open when a webhook is disabled end without being sent. */
export const DISABLED_REASON = 'The webhook was disabled before the delivery was sent.';

/**
 * Job-notification webhooks of an account: registering them (the signing secret sealed at rest and
 * answered once), and turning each status change of a job into one delivery per subscribed webhook,
 * in the transaction of the change. The delivery loop (webhook-delivery.ts) sends them.
 */
export class WebhookService {
  constructor(
    private readonly knex: Knex,
    private readonly events: EventOutbox,
    private readonly repository: WebhookRepository,
    private readonly box: SecretBox,
  ) {}

  /** The webhook and its signing secret: the only answer that ever carries the secret. */
  async create(accountId: number, input: WebhookInput): Promise<{ webhook: WebhookRecord; secret: string }> {
    const events = checkedEvents(input.events);
    assertNoErrors([...urlErrors(input.url), ...events.errors, ...descriptionErrors(input.description)]);
    const secret = newWebhookSecret();
    const id = await withTransaction(this.knex, async (trx) => {
      const inserted = await this.repository.insert(trx, {
        accountId,
        url: input.url,
        events: events.value,
        description: input.description.trim(),
        sealedSecret: this.box.seal(secret),
      });
      // The record holds only the sealed secret, which the trail redacts; the plain secret is never passed to it.
      const after = await this.repository.findForChange(trx, accountId, inserted);
      await recordChange(trx, this.events, { resourceType: 'webhook', resourceId: inserted, action: 'create', accountId, after });
      return inserted;
    });
    return { webhook: await this.get(accountId, id), secret };
  }

  list(accountId: number, page: { offset?: number; limit?: number } | undefined): Promise<Page<WebhookRecord>> {
    return this.repository.list(accountId, effectivePage(page));
  }

  async get(accountId: number, id: number): Promise<WebhookRecord> {
    const webhook = await this.repository.find(accountId, id);
    if (!webhook) throw webhookNotFound(id);
    return webhook;
  }

  /** Disabling also ends the deliveries not sent yet, so nothing reaches a URL its owner turned off. */
  async setEnabled(accountId: number, id: number, enabled: boolean): Promise<WebhookRecord> {
    await withTransaction(this.knex, async (trx) => {
      const before = await this.repository.findForChange(trx, accountId, id);
      if (!before || !(await this.repository.setEnabled(trx, accountId, id, enabled))) throw webhookNotFound(id);
      if (!enabled) await this.repository.failOpenDeliveries(trx, id, DISABLED_REASON);
      const after = await this.repository.findForChange(trx, accountId, id);
      await recordChange(trx, this.events, { resourceType: 'webhook', resourceId: id, action: 'update', accountId, before, after });
    });
    return this.get(accountId, id);
  }

  async delete(accountId: number, id: number): Promise<void> {
    await withTransaction(this.knex, async (trx) => {
      const before = await this.repository.findForChange(trx, accountId, id);
      if (!before || !(await this.repository.delete(trx, accountId, id))) throw webhookNotFound(id);
      await recordChange(trx, this.events, { resourceType: 'webhook', resourceId: id, action: 'delete', accountId, before });
    });
  }

  async listDeliveries(accountId: number, webhookId: number, page: { offset?: number; limit?: number } | undefined): Promise<Page<WebhookDeliveryRecord>> {
    await this.get(accountId, webhookId);
    return this.repository.listDeliveries(webhookId, effectivePage(page));
  }

  /** The event of a delivery sent again, as a new delivery that names the one it replays. */
  async replay(accountId: number, webhookId: number, deliveryId: number): Promise<WebhookDeliveryRecord> {
    await this.get(accountId, webhookId);
    const original = await this.repository.findDelivery(webhookId, deliveryId);
    if (!original) throw deliveryNotFound(deliveryId);
    const id = await this.repository.insertReplay(original);
    const replay = await this.repository.findDelivery(webhookId, id);
    if (!replay) throw new Error(`replay ${id} vanished after its insert`);
    return replay;
  }

  /**
   * A job reached a new status: one delivery for each enabled webhook of the account subscribed to
   * the job's kind, in `trx`, the transaction that records the status, so the event commits with it
   * or not at all. A repeated change (the same queue and status) adds nothing.
   */
  async statusChanged(trx: Knex.Transaction, view: QueueView): Promise<void> {
    const webhookIds = await this.repository.subscribers(trx, view.accountId, view.kind);
    await this.repository.insertEvent(trx, webhookIds, {
      queueId: view.queueId,
      accountId: view.accountId,
      kind: view.kind,
      status: view.status,
      totalItems: view.totalItems,
      totalProcessed: view.totalProcessed,
      message: view.message,
      occurredAt: view.updatedAt,
    });
  }
}

/** http or https, absolute, within the length bound. Where it points is judged at each delivery, by the outbound fetch guard. */
function urlErrors(url: string): FieldError[] {
  if (url.trim().length === 0) return [{ pointer: '/url', code: 'REQUIRED', detail: 'url must not be blank.' }];
  if (url.length > WEBHOOK_LIMITS.urlMax) return [{ pointer: '/url', code: 'TOO_LONG', detail: `url must be at most ${WEBHOOK_LIMITS.urlMax} characters.` }];
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [{ pointer: '/url', code: 'INVALID_FORMAT', detail: 'url must be an absolute http or https URL.' }];
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return [{ pointer: '/url', code: 'INVALID_FORMAT', detail: 'url must be an absolute http or https URL.' }];
  }
  return [];
}

function descriptionErrors(description: string): FieldError[] {
  return description.trim().length > WEBHOOK_LIMITS.descriptionMax
    ? [{ pointer: '/description', code: 'TOO_LONG', detail: `description must be at most ${WEBHOOK_LIMITS.descriptionMax} characters.` }]
    : [];
}

/** The kinds as stored: each known kind once, or ['*'] for all (also when none is named). */
function checkedEvents(events: readonly string[]): { value: string[]; errors: FieldError[] } {
  const allowed: readonly string[] = [...WEBHOOK_JOB_KINDS, WEBHOOK_ALL_EVENTS];
  const errors: FieldError[] = [];
  if (events.length > WEBHOOK_LIMITS.eventsMax) {
    errors.push({ pointer: '/events', code: 'TOO_MANY_ITEMS', detail: `events must have at most ${WEBHOOK_LIMITS.eventsMax} items.` });
  }
  events.forEach((event, i) => {
    if (!allowed.includes(event)) {
      errors.push({ pointer: `/events/${i}`, code: 'NOT_ALLOWED', detail: `events.${i} must be one of ${allowed.join(', ')}; got ${JSON.stringify(event)}.` });
    }
  });
  const value = events.length === 0 || events.includes(WEBHOOK_ALL_EVENTS) ? [WEBHOOK_ALL_EVENTS] : [...new Set(events)];
  return { value, errors };
}
