import type { Migration } from '@platform/mysql';
import { createDataSignals } from './20261123160000_create_data_signals';
import { createDynamicCampaigns } from './20261123160100_create_dynamic_campaigns';
import { createContentMaps } from './20261123160200_create_content_maps';
import { createExports } from './20261125010000_create_exports';
import { indexRunningExports } from './20261128120000_index_running_exports';
import { createDeliveryCounts } from './20261128160000_create_delivery_counts';
import { widenExportStatus } from './20261128170000_widen_export_status';

/** Every schema change of this service, in order; the outbox migration comes from @platform/nats. */
export const CONTENT_CREATIVE_MIGRATIONS: Migration[] = [
  createDataSignals,
  createDynamicCampaigns,
  createContentMaps,
  createExports,
  indexRunningExports,
  createDeliveryCounts,
  widenExportStatus,
];
