import { FEED_SECRET_FIELDS } from './feeds';

/**
 * The audit trail: every create, update and delete a service commits is recorded as one `audit.change`
 * event in the transaction of the change (`recordChange`, @platform/service), captured by the AUDIT
 * stream, and folded by storage-library into its `audit_log` table, which the audit-log routes read.
 */

/** The stream every service's audit events go to (before NATS_PREFIX); ensured by every gRPC service at start. */
export const AUDIT_STREAM = { name: 'AUDIT', subjects: ['audit.>'], maxAgeMs: 30 * 24 * 3600_000 };
export const AUDIT_CHANGE_SUBJECT = 'audit.change';

export const AUDIT_ACTIONS = ['create', 'update', 'delete'] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** The resources whose changes are recorded, named as the API names them. */
export const AUDIT_RESOURCE_TYPES = [
  'media-channel',
  'retail-campaign',
  'media-plan',
  'ad-group',
  'placement',
  'content-map',
  'dynamic-campaign',
  'data-signal',
  'export',
  'asset-source',
  'asset-source-label',
  'feed-source',
  'cloud-service',
  'asset-library-file',
  'tracker',
  'tag-variable-map',
  'custom-template',
  'template-bookmark',
  'retail-feed-setting',
  'webhook',
  'asset-library-upload',
  'cloud-copy',
] as const;
export type AuditResourceType = (typeof AUDIT_RESOURCE_TYPES)[number];

/** Who made a change: the API key the gateway resolved (a user id once keys belong to users). */
export interface AuditActor {
  type: 'api-key' | 'worker';
  keyId: string;
  userId?: string;
}

/** What `audit.change` carries; `before`/`after` are already redacted (see AUDIT_SECRET_FIELDS). */
export interface AuditChangeEvent {
  id: string;
  occurredAt: string;
  actor: AuditActor;
  action: AuditAction;
  resourceType: AuditResourceType;
  resourceId: string;
  orgId: string;
  /** Absent for resources of the org (media channels). */
  accountId?: number;
  requestId?: string;
  /** The gRPC method that made the change (`CreateMediaChannel`). */
  operation: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  changedFields: string[];
}

/**
 * Field names whose values never enter the trail, whatever resource they belong to: compared without
 * case, `-` or `_`. The value becomes AUDIT_REDACTED; a change to it is still listed in changedFields.
 */
export const AUDIT_SECRET_FIELDS = [
  ...FEED_SECRET_FIELDS,
  'secretKey',
  'secreteKey',
  'accessKey',
  'sealedCredentials',
  'credentials',
  'password',
  'apiKey',
  'token',
  'authorization',
  'headers',
  'clientSecret',
  'privateKey',
  // A webhook's signing secret: plain where a caller sees it once, sealed in the row.
  'secret',
  'sealedSecret',
] as const;
export const AUDIT_REDACTED = '[REDACTED]';

/** Bounds of the audit-log read. */
export const AUDIT_LIMITS = { resourceIdMax: 1024, requestIdMax: 128, keyIdMax: 128 } as const;
