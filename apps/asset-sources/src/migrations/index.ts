import type { Migration } from '@platform/mysql';
import { createAssetSources } from './20261123150000_create_asset_sources';
import { createRetailFeedSettings } from './20261123170000_create_retail_feed_settings';
import { createFeedSources } from './20261125010000_create_feed_sources';
import { indexActiveFeedRuns } from './20261128120000_index_active_feed_runs';
import { feedRowGenerations } from './20261128160000_feed_row_generations';
import { rowValues } from './20261128190000_row_values';
import { feedDisabledRowCount } from './20261129070000_feed_disabled_row_count';
import { feedRunCancel } from './20261129120000_feed_run_cancel';
import { feedRunReadAgainAt } from './20261129210000_feed_run_read_again_at';
import { feedPendingColumns } from './20261129230000_feed_pending_columns';
import { feedKeysExact } from './20261130050000_feed_keys_exact';

/** Every schema change of this service, in order; the outbox migration comes from @platform/nats. */
export const ASSET_SOURCES_MIGRATIONS: Migration[] = [
  createAssetSources,
  createRetailFeedSettings,
  createFeedSources,
  indexActiveFeedRuns,
  feedRowGenerations,
  rowValues,
  feedDisabledRowCount,
  feedRunCancel,
  feedRunReadAgainAt,
  feedPendingColumns,
  feedKeysExact,
];

/** The migrations up to `last`, for a spec that undoes and redoes `last` (a later one has a spec of its own). */
export const migrationsUpTo = (last: Migration): Migration[] => ASSET_SOURCES_MIGRATIONS.slice(0, ASSET_SOURCES_MIGRATIONS.indexOf(last) + 1);
