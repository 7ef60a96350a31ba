import { STORAGE_LIBRARY_ACCESS } from '@contracts/domain';
import { storageLibraryV1 as v1 } from '@contracts/proto';
import type { Logger } from '@platform/logging';
import { unaryHandlers, type CallGuard } from '@platform/service';
import type { WebhookDeliveryRecord, WebhookRecord } from './webhook.model';
import type { WebhookService } from './webhook.service';

/** What an answer shows of a webhook: never its secret, sealed or not. */
const toWebhook = (record: WebhookRecord): v1.Webhook => ({
  id: record.id,
  url: record.url,
  events: record.events,
  description: record.description,
  enabled: record.enabled,
  createdAt: record.createdAt,
  updatedAt: record.updatedAt,
});

const toDelivery = (record: WebhookDeliveryRecord): v1.WebhookDelivery => ({
  id: record.id,
  eventId: record.eventId,
  queueId: record.change.queueId,
  kind: record.change.kind,
  jobStatus: record.change.status,
  status: record.status,
  attempts: record.attempts,
  lastHttpStatus: record.lastHttpStatus ?? 0,
  lastError: record.lastError ?? '',
  nextAttemptAt: record.nextAttemptAt ?? '',
  replayOf: record.replayOf ?? 0,
  createdAt: record.createdAt,
  updatedAt: record.updatedAt,
});

type WebhookMethods = 'createWebhook' | 'listWebhooks' | 'getWebhook' | 'updateWebhook' | 'deleteWebhook' | 'listWebhookDeliveries' | 'replayWebhookDelivery';

export function webhookGrpc({
  logger,
  guard,
  webhooks,
}: {
  logger: Logger;
  guard: CallGuard;
  webhooks: WebhookService;
}): Pick<v1.StorageLibraryServiceServer, WebhookMethods> {
  return unaryHandlers(v1.StorageLibraryServiceService, STORAGE_LIBRARY_ACCESS, logger, {
    createWebhook: async (request, call) => {
      guard.account(call, request.accountId);
      const { webhook, secret } = await webhooks.create(request.accountId, { url: request.url, events: request.events, description: request.description });
      return { webhook: toWebhook(webhook), secret };
    },

    listWebhooks: async (request, call) => {
      guard.account(call, request.accountId);
      const page = await webhooks.list(request.accountId, request.page);
      return { webhooks: page.items.map(toWebhook), total: page.total };
    },

    getWebhook: async (request, call) => {
      guard.account(call, request.accountId);
      return { webhook: toWebhook(await webhooks.get(request.accountId, request.webhookId)) };
    },

    updateWebhook: async (request, call) => {
      guard.account(call, request.accountId);
      return { webhook: toWebhook(await webhooks.setEnabled(request.accountId, request.webhookId, request.enabled)) };
    },

    deleteWebhook: async (request, call) => {
      guard.account(call, request.accountId);
      await webhooks.delete(request.accountId, request.webhookId);
      return {};
    },

    listWebhookDeliveries: async (request, call) => {
      guard.account(call, request.accountId);
      const page = await webhooks.listDeliveries(request.accountId, request.webhookId, request.page);
      return { deliveries: page.items.map(toDelivery), total: page.total };
    },

    replayWebhookDelivery: async (request, call) => {
      guard.account(call, request.accountId);
      return { delivery: toDelivery(await webhooks.replay(request.accountId, request.webhookId, request.deliveryId)) };
    },
  });
}
