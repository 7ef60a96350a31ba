import { STORAGE_LIBRARY_ACCESS } from '@contracts/domain';
import { storageLibraryV1 as v1 } from '@contracts/proto';
import type { Logger } from '@platform/logging';
import { unaryHandlers, type CallGuard } from '@platform/service';
import type { AuditLogEntry } from './audit-log.model';
import type { AuditLogQuery, AuditLogService } from './audit-log.service';

const toMessage = (entry: AuditLogEntry): v1.AuditLogEntry => ({
  id: entry.id,
  occurredAt: entry.occurredAt,
  actor: { type: entry.actor.type, keyId: entry.actor.keyId, userId: entry.actor.userId },
  action: entry.action,
  resourceType: entry.resourceType,
  resourceId: entry.resourceId,
  accountId: entry.accountId ?? undefined,
  orgId: entry.orgId,
  requestId: entry.requestId ?? undefined,
  operation: entry.operation,
  beforeJson: entry.beforeJson ?? undefined,
  afterJson: entry.afterJson ?? undefined,
  changedFields: entry.changedFields,
});

const toQuery = (filter: v1.AuditLogFilter | undefined): AuditLogQuery => ({ ...filter });

export function auditLogGrpc({
  logger,
  guard,
  auditLog,
}: {
  logger: Logger;
  guard: CallGuard;
  auditLog: AuditLogService;
}): Pick<v1.StorageLibraryServiceServer, 'listAccountAuditLog' | 'listOrgAuditLog'> {
  return unaryHandlers(v1.StorageLibraryServiceService, STORAGE_LIBRARY_ACCESS, logger, {
    listAccountAuditLog: async (request, call) => {
      guard.account(call, request.accountId);
      const page = await auditLog.list({ accountId: request.accountId }, toQuery(request.filter), request);
      return { entries: page.items.map(toMessage), total: page.total };
    },
    listOrgAuditLog: async (request, call) => {
      guard.org(call, request.orgId);
      const page = await auditLog.list({ orgId: request.orgId }, toQuery(request.filter), request);
      return { entries: page.items.map(toMessage), total: page.total };
    },
  });
}
