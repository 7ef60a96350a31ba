import type { AuditAction, AuditActor } from '@contracts/domain';

/** One entry of the trail as stored; before/after stay JSON text (already redacted), passed on unparsed. */
export interface AuditLogEntry {
  id: string;
  occurredAt: string;
  actor: AuditActor;
  action: AuditAction;
  resourceType: string;
  resourceId: string;
  orgId: string;
  accountId: number | null;
  requestId: string | null;
  operation: string;
  beforeJson: string | null;
  afterJson: string | null;
  changedFields: string[];
}

/** Whose trail is read: an account's, or the org's own resources (entries of no account). */
export type AuditLogTenant = { accountId: number } | { orgId: string };

export interface AuditLogFilter {
  resourceType?: string;
  resourceId?: string;
  action?: string;
  actor?: string;
  requestId?: string;
  /** Inclusive. */
  from?: Date;
  /** Exclusive. */
  to?: Date;
}
