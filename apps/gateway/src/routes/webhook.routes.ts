import { Type } from '@sinclair/typebox';
import { STORAGE_LIBRARY_ACCESS, WEBHOOK_ALL_EVENTS, WEBHOOK_DELIVERY_STATUSES, WEBHOOK_JOB_KINDS, WEBHOOK_LIMITS } from '@contracts/domain';
import { storageLibraryV1 as v1 } from '@contracts/proto';
import { PageQuery } from '../http/pagination';
import { AccountId, BoundedString, Idx, Nullable, PageLinksSchema, PathParams, StringEnum } from './common.schemas';
import { defineRoute } from './route.types';

const TAG = 'storage';

/** Said once, in every operation's description: what the extension is and how a receiver trusts it. */
const ABOUT =
  'Extension: job-notification webhooks. Each time a job of the account (upload, cloud copy, feed ingest, export) reaches a new status ' +
  '(Queued, Processing, Completed, Failed), every enabled webhook subscribed to its kind gets one POST of ' +
  '`{id, type: "job.status_changed", occurredAt, data: {queueId, kind, status, totalItems, totalProcessed, message}}`, signed: ' +
  '`Webhook-Signature: v1=<hex HMAC-SHA256 of "<Webhook-Timestamp>.<body>" keyed with the secret>`; a receiver recomputes it over the raw body, ' +
  'compares in constant time and refuses a Webhook-Timestamp (Unix seconds) more than 5 minutes from its clock. `Webhook-Id` is the event id, ' +
  'the same on every retry and replay. A 2xx answer is a success; anything else is retried after 10 s, doubling to 1 h, 8 attempts in all by default, then the delivery fails.';

const EVENT_NAMES = [...WEBHOOK_JOB_KINDS, WEBHOOK_ALL_EVENTS] as const;

const Webhook = Type.Object({
  id: Type.Integer(),
  url: Type.String(),
  events: Type.Array(Type.String(), { description: `Job kinds, or ["${WEBHOOK_ALL_EVENTS}"] for every kind.` }),
  description: Type.String(),
  enabled: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

const Delivery = Type.Object({
  id: Type.Integer(),
  eventId: Type.String({ description: 'The event: `<queueId>:<status>`; the Webhook-Id header and the body id.' }),
  queueId: Type.String(),
  kind: Type.String(),
  jobStatus: Type.String({ description: 'Queued, Processing, Completed or Failed' }),
  status: StringEnum(WEBHOOK_DELIVERY_STATUSES),
  attempts: Type.Integer(),
  lastHttpStatus: Nullable(Type.Integer()),
  lastError: Nullable(Type.String()),
  nextAttemptAt: Nullable(Type.String({ format: 'date-time', description: 'When the next attempt is due; null once the delivery ended.' })),
  replayOf: Nullable(Type.Integer({ description: 'The delivery this one replays.' })),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

const present = (webhook: v1.Webhook | undefined) => {
  if (!webhook) throw new Error('storage-library returned no webhook');
  return {
    id: webhook.id,
    url: webhook.url,
    events: webhook.events,
    description: webhook.description,
    enabled: webhook.enabled,
    createdAt: webhook.createdAt,
    updatedAt: webhook.updatedAt,
  };
};

const presentDelivery = (delivery: v1.WebhookDelivery | undefined) => {
  if (!delivery) throw new Error('storage-library returned no delivery');
  return {
    id: delivery.id,
    eventId: delivery.eventId,
    queueId: delivery.queueId,
    kind: delivery.kind,
    jobStatus: delivery.jobStatus,
    status: delivery.status,
    attempts: delivery.attempts,
    lastHttpStatus: delivery.lastHttpStatus || null,
    lastError: delivery.lastError || null,
    nextAttemptAt: delivery.nextAttemptAt || null,
    replayOf: delivery.replayOf || null,
    createdAt: delivery.createdAt,
    updatedAt: delivery.updatedAt,
  };
};

const AccountPath = PathParams({ accountId: AccountId });
const WebhookPath = PathParams({ accountId: AccountId, webhookId: Idx });
const DeliveryPath = PathParams({ accountId: AccountId, webhookId: Idx, deliveryId: Idx });

const EXAMPLE_WEBHOOK = {
  id: 12,
  url: 'https://hooks.example.com/retail-media',
  events: ['asset-upload', 'cloud-copy'],
  description: 'Library sync',
  enabled: true,
  createdAt: '2026-03-01T08:00:00.000Z',
  updatedAt: '2026-03-01T08:00:00.000Z',
};
const EXAMPLE_DELIVERY = {
  id: 340,
  eventId: '0b8f4c1e-4d7a-4e39-9a55-5b2f7f3f1a10:Completed',
  queueId: '0b8f4c1e-4d7a-4e39-9a55-5b2f7f3f1a10',
  kind: 'asset-upload',
  jobStatus: 'Completed',
  status: 'retrying',
  attempts: 2,
  lastHttpStatus: 503,
  lastError: 'The receiver answered HTTP 503.',
  nextAttemptAt: '2026-03-01T08:01:10.000Z',
  replayOf: null,
  createdAt: '2026-03-01T08:00:40.000Z',
  updatedAt: '2026-03-01T08:00:50.000Z',
};

export const webhookRoutes = [
  defineRoute({
    operationId: 'createWebhook',
    method: 'post',
    path: '/v2/accounts/:accountId/webhooks',
    tag: TAG,
    summary: 'Register a job-notification webhook (answers its signing secret, once)',
    description:
      `${ABOUT} url: http or https, at most ${WEBHOOK_LIMITS.urlMax} characters; where it points is checked at each delivery by the platform's outbound rules ` +
      '(no private, loopback or metadata addresses), and a refused address fails the attempt. events: job kinds, or "*" (the default) for every kind. ' +
      'The answer carries `secret`, the key of the signatures: it is sealed at rest and never answered again.',
    permission: STORAGE_LIBRARY_ACCESS.createWebhook,
    scope: { account: 'accountId' },
    extension: true,
    params: AccountPath,
    body: Type.Object(
      {
        url: BoundedString(WEBHOOK_LIMITS.urlMax, {
          minLength: 1,
          pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$',
          description: 'http(s) URL the events are POSTed to.',
        }),
        events: Type.Optional(
          Type.Array(StringEnum(EVENT_NAMES), {
            minItems: 1,
            maxItems: WEBHOOK_LIMITS.eventsMax,
            uniqueItems: true,
            description: `Job kinds to be told about (${WEBHOOK_JOB_KINDS.join(', ')}), or "${WEBHOOK_ALL_EVENTS}" for every kind; "${WEBHOOK_ALL_EVENTS}" when absent.`,
          }),
        ),
        description: Type.Optional(BoundedString(WEBHOOK_LIMITS.descriptionMax, { description: 'A note for people.' })),
      },
      { additionalProperties: false },
    ),
    success: {
      status: 201,
      description: 'Registered; the only answer that carries the secret',
      schema: Type.Object({ webhook: Webhook, secret: Type.String({ description: 'The signing secret, shown here only.' }) }),
    },
    example: {
      params: { accountId: 1001 },
      request: { url: EXAMPLE_WEBHOOK.url, events: ['asset-upload', 'cloud-copy'], description: EXAMPLE_WEBHOOK.description },
      response: { webhook: EXAMPLE_WEBHOOK, secret: 'whsec_3q2-7wEXAMPLEdGhpcyBpcyBub3QgYSByZWFsIHNlY3JldA' },
    },
    async handle({ params, body, backends }) {
      const result = await backends.storageLibrary.createWebhook({
        accountId: params.accountId,
        url: body.url,
        events: body.events ?? [],
        description: body.description ?? '',
      });
      return { status: 201, body: { webhook: present(result.webhook), secret: result.secret } };
    },
  }),

  defineRoute({
    operationId: 'listWebhooks',
    method: 'get',
    path: '/v2/accounts/:accountId/webhooks',
    tag: TAG,
    summary: "List the account's webhooks",
    description: `${ABOUT} Secrets are never answered.`,
    permission: STORAGE_LIBRARY_ACCESS.listWebhooks,
    scope: { account: 'accountId' },
    extension: true,
    params: AccountPath,
    query: PageQuery,
    success: {
      status: 200,
      description: 'A page of webhooks',
      schema: Type.Object({ webhooks: Type.Array(Webhook), total: Type.Integer(), ...PageLinksSchema }),
    },
    example: { params: { accountId: 1001 }, query: { offset: 0, limit: 25 }, response: { webhooks: [EXAMPLE_WEBHOOK], total: 1, next: null, previous: null } },
    async handle({ params, query, backends, links }) {
      const result = await backends.storageLibrary.listWebhooks({ accountId: params.accountId, page: query });
      return { body: { webhooks: result.webhooks.map(present), total: result.total, ...links({ ...query, total: result.total }) } };
    },
  }),

  defineRoute({
    operationId: 'getWebhook',
    method: 'get',
    path: '/v2/accounts/:accountId/webhooks/:webhookId',
    tag: TAG,
    summary: 'Read a webhook',
    description: `${ABOUT} The secret is never answered.`,
    permission: STORAGE_LIBRARY_ACCESS.getWebhook,
    scope: { account: 'accountId' },
    extension: true,
    params: WebhookPath,
    success: { status: 200, description: 'The webhook', schema: Webhook },
    problems: ['WEBHOOK_NOT_FOUND'],
    example: { params: { accountId: 1001, webhookId: 12 }, response: EXAMPLE_WEBHOOK },
    async handle({ params, backends }) {
      const result = await backends.storageLibrary.getWebhook({ accountId: params.accountId, webhookId: params.webhookId });
      return { body: present(result.webhook) };
    },
  }),

  defineRoute({
    operationId: 'updateWebhook',
    method: 'patch',
    path: '/v2/accounts/:accountId/webhooks/:webhookId',
    tag: TAG,
    summary: 'Enable or disable a webhook',
    description: `${ABOUT} A disabled webhook gets no new deliveries, and its deliveries not sent yet end as failed.`,
    permission: STORAGE_LIBRARY_ACCESS.updateWebhook,
    scope: { account: 'accountId' },
    extension: true,
    params: WebhookPath,
    body: Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false }),
    success: { status: 200, description: 'The webhook as changed', schema: Webhook },
    problems: ['WEBHOOK_NOT_FOUND'],
    example: { params: { accountId: 1001, webhookId: 12 }, request: { enabled: false }, response: { ...EXAMPLE_WEBHOOK, enabled: false } },
    async handle({ params, body, backends }) {
      const result = await backends.storageLibrary.updateWebhook({ accountId: params.accountId, webhookId: params.webhookId, enabled: body.enabled });
      return { body: present(result.webhook) };
    },
  }),

  defineRoute({
    operationId: 'deleteWebhook',
    method: 'delete',
    path: '/v2/accounts/:accountId/webhooks/:webhookId',
    tag: TAG,
    summary: 'Delete a webhook and its deliveries',
    description: ABOUT,
    permission: STORAGE_LIBRARY_ACCESS.deleteWebhook,
    scope: { account: 'accountId' },
    extension: true,
    params: WebhookPath,
    success: { status: 204, description: 'Deleted' },
    problems: ['WEBHOOK_NOT_FOUND'],
    example: { params: { accountId: 1001, webhookId: 12 } },
    async handle({ params, backends }) {
      await backends.storageLibrary.deleteWebhook({ accountId: params.accountId, webhookId: params.webhookId });
      return { status: 204 };
    },
  }),

  defineRoute({
    operationId: 'listWebhookDeliveries',
    method: 'get',
    path: '/v2/accounts/:accountId/webhooks/:webhookId/deliveries',
    tag: TAG,
    summary: "A webhook's deliveries, newest first",
    description:
      `${ABOUT} status: pending (not attempted yet), retrying (an attempt failed; nextAttemptAt says when the next is due), ` +
      'succeeded (a 2xx came back) or failed (the last attempt failed, or the webhook was disabled first).',
    permission: STORAGE_LIBRARY_ACCESS.listWebhookDeliveries,
    scope: { account: 'accountId' },
    extension: true,
    params: WebhookPath,
    query: PageQuery,
    success: {
      status: 200,
      description: 'A page of deliveries',
      schema: Type.Object({ deliveries: Type.Array(Delivery), total: Type.Integer(), ...PageLinksSchema }),
    },
    problems: ['WEBHOOK_NOT_FOUND'],
    example: {
      params: { accountId: 1001, webhookId: 12 },
      query: { offset: 0, limit: 25 },
      response: { deliveries: [EXAMPLE_DELIVERY], total: 1, next: null, previous: null },
    },
    async handle({ params, query, backends, links }) {
      const result = await backends.storageLibrary.listWebhookDeliveries({ accountId: params.accountId, webhookId: params.webhookId, page: query });
      return { body: { deliveries: result.deliveries.map(presentDelivery), total: result.total, ...links({ ...query, total: result.total }) } };
    },
  }),

  defineRoute({
    operationId: 'replayWebhookDelivery',
    method: 'post',
    path: '/v2/accounts/:accountId/webhooks/:webhookId/deliveries/:deliveryId/replay',
    tag: TAG,
    summary: "Send a delivery's event again",
    description: `${ABOUT} The replay is a new delivery (replayOf names the original) with the same event and Webhook-Id, retried like any other.`,
    permission: STORAGE_LIBRARY_ACCESS.replayWebhookDelivery,
    scope: { account: 'accountId' },
    extension: true,
    params: DeliveryPath,
    success: { status: 201, description: 'The new delivery', schema: Delivery },
    problems: ['WEBHOOK_NOT_FOUND', 'WEBHOOK_DELIVERY_NOT_FOUND'],
    example: {
      params: { accountId: 1001, webhookId: 12, deliveryId: 340 },
      response: { ...EXAMPLE_DELIVERY, id: 355, status: 'pending', attempts: 0, lastHttpStatus: null, lastError: null, replayOf: 340 },
    },
    async handle({ params, backends }) {
      const result = await backends.storageLibrary.replayWebhookDelivery({
        accountId: params.accountId,
        webhookId: params.webhookId,
        deliveryId: params.deliveryId,
      });
      return { status: 201, body: presentDelivery(result.delivery) };
    },
  }),
];
