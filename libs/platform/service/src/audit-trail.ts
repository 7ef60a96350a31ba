import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import {
  AUDIT_CHANGE_SUBJECT,
  AUDIT_LIMITS,
  AUDIT_STREAM,
  AUDIT_REDACTED,
  AUDIT_SECRET_FIELDS,
  type AuditAction,
  type AuditActor,
  type AuditChangeEvent,
  type AuditResourceType,
} from '@contracts/domain';
import { currentRequestId } from '@platform/logging';
import { deadLetterSubjectFor, type ConsumerSpec } from '@platform/nats';
import type { EventOutbox } from './event-outbox';
import { currentCall } from './unary-handlers';

/** A durable consumer of every service's audit.change events (unprefixed, like every spec), for whoever follows the trail. */
export const auditChangeConsumerSpec = (durable: string): ConsumerSpec => ({
  stream: AUDIT_STREAM.name,
  durable,
  filterSubject: AUDIT_CHANGE_SUBJECT,
  maxDeliver: 5,
  ackWaitMs: 30_000,
  deadLetterSubject: deadLetterSubjectFor(AUDIT_STREAM.name, durable),
});

/** One change as a service states it: the record before and after, as the service holds it (unredacted). */
export interface AuditedChange {
  resourceType: AuditResourceType;
  resourceId: string | number;
  action: AuditAction;
  /** The record before the change; null or omitted for a create. */
  before?: object | null;
  /** The record after the change; null or omitted for a delete. */
  after?: object | null;
  /** The account the resource belongs to; omitted for resources of the org. */
  accountId?: number;
  /** Defaults to the caller's org. */
  orgId?: string;
}

/** Compared without case, `-` or `_`, so `secret_key`, `secretKey` and `Secret-Key` are one name. */
const normalize = (name: string) => name.replace(/[-_]/g, '').toLowerCase();
const SECRET_NAMES: ReadonlySet<string> = new Set(AUDIT_SECRET_FIELDS.map(normalize));

export const isSecretField = (name: string): boolean => SECRET_NAMES.has(normalize(name));

/**
 * A record as the trail may keep it: every member named a secret (at any depth) replaced by
 * AUDIT_REDACTED, binary values dropped to a marker (a sealed blob is no one's business either), dates as
 * ISO text. Free-form JSON held as text (`configurationJson`) is parsed and redacted too, so a secret a
 * customer put in it is not kept; text that is not JSON is kept as it is.
 */
export function redactRecord(record: object | null | undefined): Record<string, unknown> | null {
  if (record === null || record === undefined) return null;
  return redactValue(record, 0) as Record<string, unknown>;
}

/** Deeper than any record we store: past it a value is cut rather than walked. */
const MAX_DEPTH = 32;

function redactValue(value: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH) return '[TRUNCATED]';
  if (value === null || value === undefined) return value ?? null;
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return AUDIT_REDACTED;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string') return redactJsonText(value, depth);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) {
      if (member === undefined || typeof member === 'function') continue;
      out[key] = isSecretField(key) ? AUDIT_REDACTED : redactValue(member, depth + 1);
    }
    return out;
  }
  return value;
}

/**
 * A string holding a JSON object or array is redacted as JSON and kept as text of the redacted value;
 * a URL loses the password of its user part and the values of query parameters named as secrets
 * (`?token=...`), which is where credentials in a customer's URL sit.
 */
function redactJsonText(text: string, depth: number): string {
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return redactUrl(text);
    return FORM_ENCODED.test(text) ? (redactParams(new URLSearchParams(text)) ?? text) : text;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  return JSON.stringify(redactValue(parsed, depth + 1));
}

/** `a=1&token=x`: parameters a remote source sends, where a credential may sit as well. */
const FORM_ENCODED = /^[\w.~-]+=[^&]*(&[\w.~-]+=[^&]*)*$/;

/** The parameters with the values of those named as secrets replaced; undefined when none is. */
function redactParams(params: URLSearchParams): string | undefined {
  let changed = false;
  for (const name of [...new Set(params.keys())]) {
    if (isSecretField(name)) {
      params.set(name, AUDIT_REDACTED);
      changed = true;
    }
  }
  return changed ? params.toString() : undefined;
}

function redactUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return text;
  }
  let changed = false;
  if (url.password) {
    url.password = AUDIT_REDACTED;
    changed = true;
  }
  const query = redactParams(url.searchParams);
  if (query !== undefined) {
    url.search = query;
    changed = true;
  }
  return changed ? url.toString() : text;
}

/**
 * Top-level fields whose values differ between before and after (compared as JSON, unredacted, so a
 * rotated secret is listed as changed while its values stay hidden). A create lists every field of
 * after, a delete every field of before.
 */
export function changedFields(before: object | null | undefined, after: object | null | undefined): string[] {
  const b = (before ?? {}) as Record<string, unknown>;
  const a = (after ?? {}) as Record<string, unknown>;
  const names = new Set([...Object.keys(b), ...Object.keys(a)]);
  return [...names].filter((name) => comparable(b[name]) !== comparable(a[name])).sort();
}

function comparable(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (Buffer.isBuffer(value)) return `buffer:${value.toString('base64')}`;
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

/**
 * The actor of the call being served, as the call guard verified it. A change recorded outside a
 * guarded call has no one to answer for it, which is a programming error: it fails the write rather
 * than entering the trail unattributed.
 */
export function currentActor(): { actor: AuditActor; orgId: string; operation: string } {
  const call = currentCall();
  if (!call?.principal) throw new Error('recordChange must run inside a guarded gRPC call (its actor comes from the verified principal)');
  const { keyId, orgId } = call.principal;
  const actor: AuditActor = keyId.startsWith('worker:') ? { type: 'worker', keyId } : { type: 'api-key', keyId };
  return { actor, orgId, operation: call.method };
}

/** The event one change makes; separate from recordChange so its shape is tested without a database. */
export function auditEvent(change: AuditedChange, caller = currentActor(), now = new Date()): AuditChangeEvent {
  const requestId = currentRequestId();
  return {
    id: randomUUID(),
    occurredAt: now.toISOString(),
    actor: caller.actor,
    action: change.action,
    resourceType: change.resourceType,
    resourceId: String(change.resourceId).slice(0, AUDIT_LIMITS.resourceIdMax),
    orgId: change.orgId ?? caller.orgId,
    ...(change.accountId !== undefined ? { accountId: change.accountId } : {}),
    ...(requestId ? { requestId } : {}),
    operation: caller.operation,
    before: redactRecord(change.before),
    after: redactRecord(change.after),
    changedFields: changedFields(change.before, change.after),
  };
}

/**
 * Records one change in the audit trail, in the transaction that makes it: the event commits with the
 * change or not at all, and the outbox relay publishes it on `audit.change` (AUDIT_STREAM). Call it in
 * every write path, with the record as read before the change (inside the transaction) and as it is after.
 */
export async function recordChange(trx: Knex.Transaction, outbox: EventOutbox, change: AuditedChange): Promise<void> {
  const event = auditEvent(change);
  await outbox.record(trx, { subject: AUDIT_CHANGE_SUBJECT, msgId: `audit:${event.id}`, payload: event });
}
