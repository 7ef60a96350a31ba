import type { AuditAction, AuditActor, AuditChangeEvent } from '@contracts/domain';
import { listWithTotalQuery, type Page, type PageWindow, type ServiceDatabase } from '@platform/mysql';
import type { AuditLogEntry, AuditLogFilter, AuditLogTenant } from './audit-log.model';

interface AuditLogRow {
  id: string;
  occurred_at: Date;
  actor_type: string;
  actor_key_id: string;
  actor_user_id: string | null;
  action: string;
  resource_type: string;
  resource_id: string;
  org_id: string;
  account_id: number | string | null;
  request_id: string | null;
  operation: string;
  before_json: string | null;
  after_json: string | null;
  changed_fields: string;
}

const toEntry = (row: AuditLogRow): AuditLogEntry => ({
  id: row.id,
  occurredAt: row.occurred_at.toISOString(),
  actor: {
    type: row.actor_type as AuditActor['type'],
    keyId: row.actor_key_id,
    ...(row.actor_user_id !== null ? { userId: row.actor_user_id } : {}),
  },
  action: row.action as AuditAction,
  resourceType: row.resource_type,
  resourceId: row.resource_id,
  orgId: row.org_id,
  accountId: row.account_id === null ? null : Number(row.account_id),
  requestId: row.request_id,
  operation: row.operation,
  beforeJson: row.before_json,
  afterJson: row.after_json,
  changedFields: JSON.parse(row.changed_fields) as string[],
});

export class AuditLogRepository {
  constructor(private readonly db: ServiceDatabase) {}

  /** Inserts the event's entry unless its id is already there; whether it was new. */
  async insertOnce(event: AuditChangeEvent): Promise<boolean> {
    const affected = await this.db.write(
      `INSERT IGNORE INTO audit_log (id, occurred_at, actor_type, actor_key_id, actor_user_id, action, resource_type, resource_id, org_id,
         account_id, request_id, operation, before_json, after_json, changed_fields)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        event.id,
        new Date(event.occurredAt),
        event.actor.type,
        event.actor.keyId,
        event.actor.userId ?? null,
        event.action,
        event.resourceType,
        event.resourceId,
        event.orgId,
        event.accountId ?? null,
        event.requestId ?? null,
        event.operation,
        event.before === null ? null : JSON.stringify(event.before),
        event.after === null ? null : JSON.stringify(event.after),
        JSON.stringify(event.changedFields),
      ],
    );
    return affected.affectedRows > 0;
  }

  /** Newest first; ties (one transaction's changes share a millisecond) in a fixed order, so pages do not overlap. */
  list(tenant: AuditLogTenant, filter: AuditLogFilter, window: PageWindow): Promise<Page<AuditLogEntry>> {
    const query = this.db.knex<AuditLogRow>('audit_log').select('*');
    if ('accountId' in tenant) query.where('account_id', tenant.accountId);
    else query.where('org_id', tenant.orgId).whereNull('account_id');
    if (filter.resourceType !== undefined) query.where('resource_type', filter.resourceType);
    if (filter.resourceId !== undefined) query.where('resource_id', filter.resourceId);
    if (filter.action !== undefined) query.where('action', filter.action);
    if (filter.actor !== undefined) query.where('actor_key_id', filter.actor);
    if (filter.requestId !== undefined) query.where('request_id', filter.requestId);
    if (filter.from !== undefined) query.where('occurred_at', '>=', filter.from);
    if (filter.to !== undefined) query.where('occurred_at', '<', filter.to);
    query.orderBy([
      { column: 'occurred_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ]);
    return listWithTotalQuery(query, window, toEntry);
  }
}
