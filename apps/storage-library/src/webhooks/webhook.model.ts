import type { QueueStatus } from '@platform/jobs';
import type { WebhookDeliveryStatus } from '@contracts/domain';

export interface WebhookRecord {
  id: number;
  accountId: number;
  url: string;
  /** Job kinds, or ['*'] for every kind. */
  events: string[];
  description: string;
  enabled: boolean;
  /** The signing secret, sealed; opened only to sign a delivery. */
  sealedSecret: Buffer;
  createdAt: string;
  updatedAt: string;
}

export interface WebhookInput {
  url: string;
  /** Empty means every kind. */
  events: string[];
  description: string;
}

/** A job's state when it changed: what the event's data says. */
export interface JobStatusChange {
  queueId: string;
  accountId: number;
  kind: string;
  status: QueueStatus;
  totalItems: number;
  totalProcessed: number;
  message: string;
  /** RFC 3339. */
  occurredAt: string;
}

export interface WebhookDeliveryRecord {
  id: number;
  webhookId: number;
  accountId: number;
  eventId: string;
  change: JobStatusChange;
  status: WebhookDeliveryStatus;
  attempts: number;
  lastHttpStatus: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  replayOf: number | null;
  createdAt: string;
  updatedAt: string;
}

/** One event per status a job reaches: the key that makes a repeated change write nothing. */
export const eventIdOf = (change: Pick<JobStatusChange, 'queueId' | 'status'>) => `${change.queueId}:${change.status}`;

/** What a delivery loop attempt ended with. */
export interface AttemptOutcome {
  /** The HTTP status, when an answer came. */
  httpStatus: number | null;
  /** Why it is not a success; null for a 2xx. Shown to the account in the deliveries list. */
  error: string | null;
  /** A stable word for the logs (the error text may quote the URL, query included): HTTP_STATUS, an OUTBOUND_* code, ... */
  code: string | null;
  durationMs: number;
}
