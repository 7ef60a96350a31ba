import type { ServiceDatabase } from '@platform/mysql';
import type { ObjectStore } from '@platform/s3';
import type { SecretBox } from '@platform/secrets';
import type { EventOutbox } from '@platform/service';
import { AssetLibraryService } from './asset-library/asset-library.service';
import { AuditLogRepository } from './audit/audit-log.repository';
import { AuditLogService } from './audit/audit-log.service';
import { CloudServiceRepository } from './cloud-services/cloud-service.repository';
import { CloudServiceService } from './cloud-services/cloud-service.service';
import { QueueRepository } from './queues/queue.repository';
import { QueueService } from './queues/queue.service';
import { WebhookRepository } from './webhooks/webhook.repository';
import { WebhookService } from './webhooks/webhook.service';

export interface StorageLibraryServices {
  queues: QueueService;
  assets: AssetLibraryService;
  cloud: CloudServiceService;
  webhooks: WebhookService;
  /** The webhook delivery loop's statements, for the loop the module starts (and the specs run). */
  webhookRepository: WebhookRepository;
  auditLog: AuditLogService;
}

export interface StorageLibraryServiceDeps {
  db: ServiceDatabase;
  events: EventOutbox;
  store: ObjectStore;
  box: SecretBox;
  /** Parsed OUTBOUND_ALLOWLIST. */
  allowlist: readonly string[];
}

/** Repositories and services over one database and bucket; the gRPC server and the specs build them the same way. */
export function createStorageLibraryServices(deps: StorageLibraryServiceDeps): StorageLibraryServices {
  const webhookRepository = new WebhookRepository(deps.db);
  const webhooks = new WebhookService(deps.db.knex, deps.events, webhookRepository, deps.box);
  // Every status a job reaches becomes the deliveries of the account's webhooks, in the same transaction.
  const queues = new QueueService(deps.db.knex, deps.events, new QueueRepository(deps.db), undefined, undefined, (trx, view) =>
    webhooks.statusChanged(trx, view),
  );
  return {
    queues,
    webhooks,
    webhookRepository,
    assets: new AssetLibraryService(deps.store, queues, deps.db.knex, deps.events),
    cloud: new CloudServiceService(deps.db.knex, deps.events, new CloudServiceRepository(deps.db), deps.box, queues, deps.allowlist),
    auditLog: new AuditLogService(new AuditLogRepository(deps.db)),
  };
}
