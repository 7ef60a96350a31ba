import { EXPORT_JOB_KIND } from './exports';
import { STORAGE_JOB_KINDS } from './storage';

/**
 * Job-notification webhooks (an extension): bounds and names shared by the gateway, which validates a
 * request, and storage-library, which re-checks what it stores and delivers the events.
 */

/** The job kinds a webhook may subscribe to: every kind whose progress the queue view folds. */
export const WEBHOOK_JOB_KINDS = [STORAGE_JOB_KINDS.upload, STORAGE_JOB_KINDS.cloudCopy, 'feed-ingest', EXPORT_JOB_KIND] as const;

/** Subscribes a webhook to every job kind, present and future. */
export const WEBHOOK_ALL_EVENTS = '*';

export const WEBHOOK_LIMITS = {
  /** Longest URL a webhook may name, in characters. */
  urlMax: 2048,
  /** Longest description. */
  descriptionMax: 500,
  /** Most entries of `events` (every kind once, or '*'). */
  eventsMax: WEBHOOK_JOB_KINDS.length + 1,
} as const;

/** The `type` of every event a webhook receives today. */
export const WEBHOOK_EVENT_TYPE = 'job.status_changed';

/** A delivery's state: waiting for its first attempt, waiting to retry, or done either way. */
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'retrying', 'succeeded', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/** Headers of a delivery; a receiver verifies Webhook-Signature over `${Webhook-Timestamp}.${body}`. */
export const WEBHOOK_HEADERS = { id: 'Webhook-Id', timestamp: 'Webhook-Timestamp', signature: 'Webhook-Signature' } as const;
