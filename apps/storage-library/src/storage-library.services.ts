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

export interface StorageLibraryServices {
  queues: QueueService;
  assets: AssetLibraryService;
  cloud: CloudServiceService;
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
  const queues = new QueueService(deps.db.knex, deps.events, new QueueRepository(deps.db));
  return {
    queues,
    assets: new AssetLibraryService(deps.store, queues, deps.db.knex, deps.events),
    cloud: new CloudServiceService(deps.db.knex, deps.events, new CloudServiceRepository(deps.db), deps.box, queues, deps.allowlist),
    auditLog: new AuditLogService(new AuditLogRepository(deps.db)),
  };
}
