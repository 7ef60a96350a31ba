import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';
import { WEBHOOK_EVENT_TYPE, WEBHOOK_HEADERS } from '@contracts/domain';
import type { Logger } from '@platform/logging';
import { withTransaction } from '@platform/mysql';
import { backoffDelay } from '@platform/nats';
import { isOutboundFetchError, type OutboundFetch } from '@platform/outbound-fetch';
import type { SecretBox } from '@platform/secrets';
import type { AttemptOutcome, WebhookDeliveryRecord } from './webhook.model';
import type { WebhookRepository } from './webhook.repository';
import { webhookSignature } from './webhook-signature';

export interface WebhookDeliveryPolicy {
  /** Time one POST may take, connection and answer together. */
  timeoutMs: number;
  /** Delay after the first failed attempt, doubling after each further one. */
  retryInitialMs: number;
  retryMaxMs: number;
  /** Attempts in all; the delivery fails after the last. */
  maxAttempts: number;
  /** Most deliveries one run sends, so a backlog does not keep a stopping service waiting. */
  perRun: number;
}

/** The body every delivery POSTs: the event as the job's status changed. */
export function deliveryBody(delivery: Pick<WebhookDeliveryRecord, 'eventId' | 'change'>): string {
  const { change } = delivery;
  return JSON.stringify({
    id: delivery.eventId,
    type: WEBHOOK_EVENT_TYPE,
    occurredAt: change.occurredAt,
    data: {
      queueId: change.queueId,
      kind: change.kind,
      status: change.status,
      totalItems: change.totalItems,
      totalProcessed: change.totalProcessed,
      message: change.message,
    },
  });
}

/**
 * Sends due deliveries, one at a time on this replica: claim one (its own short transaction), POST it
 * through the outbound fetch guard, record the outcome (another). No transaction is open during the
 * POST, so a slow receiver holds no lock and no connection; replicas share the work by SKIP LOCKED.
 */
export class WebhookDispatcher {
  private stopping = false;

  constructor(
    private readonly knex: Knex,
    private readonly repository: WebhookRepository,
    private readonly box: SecretBox,
    private readonly outbound: OutboundFetch,
    private readonly policy: WebhookDeliveryPolicy,
    private readonly logger: Logger,
    private readonly nowSeconds: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  /** The lease of a claim: past the POST's own timeout, so a live attempt is never claimed twice. */
  get leaseMs(): number {
    return this.policy.timeoutMs * 2 + 5_000;
  }

  /** Sends what is due, up to `perRun` deliveries; answers how many were attempted. */
  async runOnce(): Promise<number> {
    let attempted = 0;
    while (!this.stopping && attempted < this.policy.perRun) {
      const delivery = await this.claim();
      if (!delivery) break;
      attempted++;
      await this.deliver(delivery);
    }
    return attempted;
  }

  /**
   * The claim commits before the POST, so no transaction stays open across it. READ COMMITTED: a
   * locking read there locks the row it returns and no gap (see the repository). A claim that
   * deadlocks fails this run only; the next run claims again.
   */
  private claim(): Promise<WebhookDeliveryRecord | undefined> {
    return this.knex.transaction((trx) => this.repository.claimDue(trx, this.leaseMs), { isolationLevel: 'read committed' });
  }

  private record(delivery: WebhookDeliveryRecord, outcome: AttemptOutcome, next: { status: 'succeeded' | 'retrying' | 'failed'; retryInMs: number | null }) {
    return withTransaction(this.knex, (trx) => this.repository.recordAttempt(trx, delivery, outcome, next));
  }

  /** Ends the run in progress after its current delivery. */
  stop(): void {
    this.stopping = true;
  }

  private async deliver(delivery: WebhookDeliveryRecord): Promise<void> {
    const webhook = await this.repository.findForDelivery(delivery.webhookId);
    if (!webhook?.enabled) {
      // Deleted or disabled since the delivery was recorded: nothing is sent.
      await this.record(
        delivery,
        { httpStatus: null, error: 'The webhook is disabled or deleted.', code: 'WEBHOOK_DISABLED', durationMs: 0 },
        { status: 'failed', retryInMs: null },
      );
      return;
    }
    let secret: string;
    try {
      secret = this.box.open(webhook.sealedSecret);
    } catch {
      // A secret sealed under another key cannot sign; retrying will not open it, so the delivery ends.
      await this.record(
        delivery,
        { httpStatus: null, error: 'The signing secret could not be opened.', code: 'SECRET_UNREADABLE', durationMs: 0 },
        { status: 'failed', retryInMs: null },
      );
      this.logger.error({ webhookId: webhook.id, deliveryId: delivery.id }, 'webhook signing secret could not be opened');
      return;
    }
    const outcome = await this.post(webhook.url, secret, delivery);
    const succeeded = outcome.error === null;
    const last = delivery.attempts >= this.policy.maxAttempts;
    const next = succeeded
      ? { status: 'succeeded' as const, retryInMs: null }
      : last
        ? { status: 'failed' as const, retryInMs: null }
        : { status: 'retrying' as const, retryInMs: backoffDelay({ initialMs: this.policy.retryInitialMs, maxMs: this.policy.retryMaxMs }, delivery.attempts) };
    const recorded = await this.record(delivery, outcome, next);
    // Ids and statuses only: never the URL's query, the body or anything of the secret.
    const fields = { webhookId: webhook.id, deliveryId: delivery.id, attempt: delivery.attempts, httpStatus: outcome.httpStatus, next: next.status, recorded };
    if (succeeded) this.logger.debug(fields, 'webhook delivered');
    else this.logger.warn({ ...fields, code: outcome.code }, 'webhook delivery attempt failed');
  }

  private async post(url: string, secret: string, delivery: WebhookDeliveryRecord): Promise<AttemptOutcome> {
    const body = deliveryBody(delivery);
    const timestamp = this.nowSeconds();
    const started = performance.now();
    try {
      const response = await this.outbound.fetchStream(url, {
        method: 'POST',
        timeoutMs: this.policy.timeoutMs,
        // A redirect is not followed: the receiver's answer is the outcome (3xx is a failure).
        maxRedirects: 0,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'retail-media-webhooks/1',
          [WEBHOOK_HEADERS.id]: delivery.eventId,
          [WEBHOOK_HEADERS.timestamp]: String(timestamp),
          [WEBHOOK_HEADERS.signature]: webhookSignature(secret, timestamp, body),
        },
        body,
      });
      // Only the status matters; the receiver's body is not read.
      response.body.destroy();
      const ok = response.status >= 200 && response.status < 300;
      return ok
        ? { httpStatus: response.status, error: null, code: null, durationMs: performance.now() - started }
        : {
            httpStatus: response.status,
            error: `The receiver answered HTTP ${response.status}.`,
            code: 'HTTP_STATUS',
            durationMs: performance.now() - started,
          };
    } catch (error) {
      const code = isOutboundFetchError(error) ? error.code : 'REQUEST_FAILED';
      const reason = isOutboundFetchError(error) ? `${error.code}: ${error.message}` : 'The request failed.';
      return { httpStatus: null, error: reason, code, durationMs: performance.now() - started };
    }
  }
}
