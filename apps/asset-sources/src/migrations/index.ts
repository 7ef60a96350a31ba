import type { Migration } from '@platform/mysql';
import { createAssetSources } from './20261123150000_create_asset_sources';

/** Every schema change of this service, in order; the outbox migration comes from @platform/nats. */
export const ASSET_SOURCES_MIGRATIONS: Migration[] = [createAssetSources];
