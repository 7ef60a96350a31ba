import { Type } from '@sinclair/typebox';
import { AUDIT_ACTIONS, AUDIT_LIMITS, AUDIT_RESOURCE_TYPES, STORAGE_LIBRARY_ACCESS } from '@contracts/domain';
import type { storageLibraryV1 as v1 } from '@contracts/proto';
import { PageQuery } from '../http/pagination';
import { AccountId, BoundedString, Nullable, OrgId, PageLinksSchema, PathParams, StringEnum } from './common.schemas';
import { defineRoute, type RouteSpec } from './route.types';

const TAG = 'audit';

/** An id of our own (a key id, a request id): letters, digits and `._-`, as the gateway mints them. */
const SAFE_ID = '^[A-Za-z0-9._:-]+$';

const AuditQuery = Type.Object(
  {
    resourceType: Type.Optional(StringEnum(AUDIT_RESOURCE_TYPES, { description: 'Only changes of this kind of resource.' })),
    resourceId: Type.Optional(BoundedString(AUDIT_LIMITS.resourceIdMax, { minLength: 1, description: 'Only changes of the resource with this id.' })),
    action: Type.Optional(StringEnum(AUDIT_ACTIONS, { description: 'Only creates, updates or deletes.' })),
    actor: Type.Optional(BoundedString(AUDIT_LIMITS.keyIdMax, { minLength: 1, pattern: SAFE_ID, description: 'Only changes made with this API key id.' })),
    requestId: Type.Optional(
      BoundedString(AUDIT_LIMITS.requestIdMax, { minLength: 1, pattern: SAFE_ID, description: 'Only changes made by the request with this X-Request-Id.' }),
    ),
    from: Type.Optional(BoundedString(40, { format: 'date-time', description: 'Changes at or after this time (RFC 3339).' })),
    to: Type.Optional(BoundedString(40, { format: 'date-time', description: 'Changes before this time (RFC 3339); must be later than from.' })),
    ...PageQuery.properties,
  },
  { additionalProperties: false },
);

const AuditEntry = Type.Object({
  id: Type.String(),
  occurredAt: Type.String({ format: 'date-time' }),
  actor: Type.Object({
    type: Type.String({ description: 'api-key (a client key) or worker (a job carried out for the account)' }),
    keyId: Type.String(),
    userId: Type.Optional(Type.String()),
  }),
  action: StringEnum(AUDIT_ACTIONS),
  resourceType: StringEnum(AUDIT_RESOURCE_TYPES),
  resourceId: Type.String(),
  accountId: Nullable(Type.Integer({ description: 'Null for resources of the org (media channels).' })),
  orgId: Type.String(),
  requestId: Nullable(Type.String({ description: 'X-Request-Id of the request that made the change.' })),
  operation: Type.String({ description: 'The backend operation that made the change, e.g. CreateCloudService.' }),
  before: Nullable(Type.Object({}, { additionalProperties: true, description: 'The record before the change; null for a create. Secrets read [REDACTED].' })),
  after: Nullable(Type.Object({}, { additionalProperties: true, description: 'The record after the change; null for a delete. Secrets read [REDACTED].' })),
  changedFields: Type.Array(Type.String(), { description: 'Top-level fields whose values differ between before and after.' }),
});

const AuditPage = Type.Object({ entries: Type.Array(AuditEntry), total: Type.Integer(), ...PageLinksSchema });

const DESCRIPTION =
  'Every create, update and delete of the services, newest first, each with who made it (the API key), the request that made it ' +
  '(its X-Request-Id), the operation and the record before and after, secrets and credentials redacted. An entry is readable ' +
  'shortly after its change commits (it is folded from an event). A bad filter answers 400 naming the parameter.';

const toEntry = (entry: v1.AuditLogEntry) => ({
  id: entry.id,
  occurredAt: entry.occurredAt,
  actor: { type: entry.actor?.type ?? 'api-key', keyId: entry.actor?.keyId ?? '', ...(entry.actor?.userId ? { userId: entry.actor.userId } : {}) },
  action: entry.action as (typeof AUDIT_ACTIONS)[number],
  resourceType: entry.resourceType as (typeof AUDIT_RESOURCE_TYPES)[number],
  resourceId: entry.resourceId,
  accountId: entry.accountId ?? null,
  orgId: entry.orgId,
  requestId: entry.requestId ?? null,
  operation: entry.operation,
  // Stored as JSON text by the service; parsed once here so the answer is one JSON document.
  before: entry.beforeJson === undefined ? null : (JSON.parse(entry.beforeJson) as Record<string, unknown>),
  after: entry.afterJson === undefined ? null : (JSON.parse(entry.afterJson) as Record<string, unknown>),
  changedFields: entry.changedFields,
});

const filterOf = ({ offset: _offset, limit: _limit, ...filter }: { offset: number; limit: number } & v1.AuditLogFilter): v1.AuditLogFilter => filter;

const EXAMPLE_ENTRY = {
  id: '0b6f9c1e-2f7a-4d4b-9a53-3b1f3f2a9d10',
  occurredAt: '2026-03-02T09:30:00.000Z',
  actor: { type: 'api-key', keyId: 'key_1a2b3c' },
  action: 'update' as const,
  resourceType: 'cloud-service' as const,
  resourceId: '12',
  accountId: 1001,
  orgId: 'acme-retail',
  requestId: 'req-7f3a',
  operation: 'RenameCloudService',
  before: { id: 12, name: 'Product shots', bucket: 'acme-media', sealedCredentials: '[REDACTED]' },
  after: { id: 12, name: 'Product photos', bucket: 'acme-media', sealedCredentials: '[REDACTED]' },
  changedFields: ['name'],
};

/** The audit trail (an extension): storage-library folds every service's audit events and answers these reads. */
export const auditLogRoutes: RouteSpec[] = [
  defineRoute({
    operationId: 'listAccountAuditLog',
    method: 'get',
    path: '/v2/accounts/:accountId/audit-log',
    tag: TAG,
    summary: "The audit trail of an account's resources",
    description: DESCRIPTION,
    extension: true,
    permission: STORAGE_LIBRARY_ACCESS.listAccountAuditLog,
    scope: { account: 'accountId' },
    params: PathParams({ accountId: AccountId }),
    query: AuditQuery,
    success: { status: 200, description: 'A page of entries, newest first', schema: AuditPage },
    example: {
      params: { accountId: 1001 },
      query: { offset: 0, limit: 25, resourceType: 'cloud-service' },
      response: { entries: [EXAMPLE_ENTRY], total: 1, next: null, previous: null },
    },
    async handle({ params, query, backends, links }) {
      const result = await backends.storageLibrary.listAccountAuditLog({
        accountId: params.accountId,
        filter: filterOf(query),
        offset: query.offset,
        limit: query.limit,
      });
      return { body: { entries: result.entries.map(toEntry), total: result.total, ...links({ ...query, total: result.total }) } };
    },
  }),

  defineRoute({
    operationId: 'listOrgAuditLog',
    method: 'get',
    path: '/v2/org/:orgId/audit-log',
    tag: TAG,
    summary: "The audit trail of the org's own resources (media channels)",
    description: `${DESCRIPTION} Changes of an account's resources are read through that account.`,
    extension: true,
    permission: STORAGE_LIBRARY_ACCESS.listOrgAuditLog,
    scope: { org: 'orgId' },
    params: PathParams({ orgId: OrgId }),
    query: AuditQuery,
    success: { status: 200, description: 'A page of entries, newest first', schema: AuditPage },
    example: {
      params: { orgId: 'acme-retail' },
      query: { offset: 0, limit: 25 },
      response: {
        entries: [
          {
            ...EXAMPLE_ENTRY,
            resourceType: 'media-channel' as const,
            resourceId: '42',
            accountId: null,
            operation: 'UpdateMediaChannel',
            before: { idx: 42, name: 'Onsite' },
            after: { idx: 42, name: 'Onsite display' },
          },
        ],
        total: 1,
        next: null,
        previous: null,
      },
    },
    async handle({ params, query, backends, links }) {
      const result = await backends.storageLibrary.listOrgAuditLog({ orgId: params.orgId, filter: filterOf(query), offset: query.offset, limit: query.limit });
      return { body: { entries: result.entries.map(toEntry), total: result.total, ...links({ ...query, total: result.total }) } };
    },
  }),
];
