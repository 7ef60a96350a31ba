import type { Migration } from '@platform/mysql';
import { createTagVariableMapsAndTagMetadata } from './20261123160000_create_tag_variable_maps_and_tag_metadata';
import { createTrackers } from './20261123170000_create_trackers';

/** Every schema change of this service, in order; the outbox migration comes from @platform/nats. */
export const TAGGING_TRACKERS_MIGRATIONS: Migration[] = [createTagVariableMapsAndTagMetadata, createTrackers];
