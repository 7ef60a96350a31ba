import type { Migration } from '@platform/mysql';
import { createStorageLibrary } from './20261123150000_create_storage_library';
import { createWebhooks } from './20261128120000_create_webhooks';
import { createAuditLog } from './20261128120000_create_audit_log';

/** Every schema change of this service, in order; the outbox migration comes from @platform/nats. */
export const STORAGE_LIBRARY_MIGRATIONS: Migration[] = [createStorageLibrary, createWebhooks, createAuditLog];
