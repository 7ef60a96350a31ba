import { AUDIT_ACTIONS, AUDIT_LIMITS, AUDIT_RESOURCE_TYPES, effectivePage, type AuditChangeEvent } from '@contracts/domain';
import { validationFailed, type FieldError } from '@platform/errors';
import type { Page } from '@platform/mysql';
import type { AuditLogEntry, AuditLogFilter, AuditLogTenant } from './audit-log.model';
import type { AuditLogRepository } from './audit-log.repository';

/** The filters as they cross gRPC: text, each optional. */
export interface AuditLogQuery {
  resourceType?: string;
  resourceId?: string;
  action?: string;
  actor?: string;
  requestId?: string;
  from?: string;
  to?: string;
}

/** RFC 3339 with a zone, as the gateway's `date-time` format accepts it. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/** The trail: folded from every service's audit.change events, read per account or per org. */
export class AuditLogService {
  constructor(private readonly repository: AuditLogRepository) {}

  /** Folds one event; a redelivered or republished event (same id) changes nothing. */
  async apply(event: AuditChangeEvent): Promise<boolean> {
    return this.repository.insertOnce(event);
  }

  async list(tenant: AuditLogTenant, query: AuditLogQuery, page: { offset?: number; limit?: number }): Promise<Page<AuditLogEntry>> {
    return this.repository.list(tenant, parseFilter(query), effectivePage(page));
  }
}

/** The gateway checks the same; re-checked because it is not the only caller. Each error names its query parameter. */
export function parseFilter(query: AuditLogQuery): AuditLogFilter {
  const errors: FieldError[] = [];
  const oneOf = (parameter: string, value: string | undefined, allowed: readonly string[]) => {
    if (value !== undefined && !allowed.includes(value)) {
      errors.push({ parameter, code: 'NOT_ALLOWED', detail: `${parameter} must be one of ${allowed.join(', ')}.` });
    }
  };
  const bounded = (parameter: string, value: string | undefined, max: number) => {
    if (value !== undefined && (value.length === 0 || value.length > max)) {
      errors.push({ parameter, code: value.length === 0 ? 'REQUIRED' : 'TOO_LONG', detail: `${parameter} must be 1 to ${max} characters.` });
    }
  };
  const time = (parameter: string, value: string | undefined): Date | undefined => {
    if (value === undefined) return undefined;
    const parsed = new Date(value);
    if (!RFC3339.test(value) || Number.isNaN(parsed.getTime())) {
      errors.push({ parameter, code: 'INVALID_FORMAT', detail: `${parameter} must be an RFC 3339 date-time such as 2026-01-31T12:00:00Z.` });
      return undefined;
    }
    return parsed;
  };
  oneOf('resourceType', query.resourceType, AUDIT_RESOURCE_TYPES);
  oneOf('action', query.action, AUDIT_ACTIONS);
  bounded('resourceId', query.resourceId, AUDIT_LIMITS.resourceIdMax);
  bounded('actor', query.actor, AUDIT_LIMITS.keyIdMax);
  bounded('requestId', query.requestId, AUDIT_LIMITS.requestIdMax);
  const from = time('from', query.from);
  const to = time('to', query.to);
  if (from && to && from.getTime() >= to.getTime()) {
    errors.push({ parameter: 'to', code: 'OUT_OF_RANGE', detail: 'to must be later than from.' });
  }
  if (errors.length > 0) throw validationFailed(errors);
  return { ...query, from, to };
}
