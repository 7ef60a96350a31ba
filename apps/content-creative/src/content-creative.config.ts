import { SERVICE_ENDPOINTS } from '@contracts/proto';
import { z } from '@platform/config';
import { grpcServiceFields, peerAddressFields } from '@platform/service';

export const contentCreativeConfigSchema = z.object({
  ...grpcServiceFields,
  // Asset sources answer which sources and columns a campaign may name; channels-plans which placements and ad groups a content map may;
  // storage-library keeps the queue view a started export is handed to; tagging-trackers holds the trackers a served ad fires.
  ...peerAddressFields([SERVICE_ENDPOINTS.assetSources, SERVICE_ENDPOINTS.channelsPlans, SERVICE_ENDPOINTS.storageLibrary, SERVICE_ENDPOINTS.taggingTrackers]),
  /** How often every campaign's serving snapshot is compiled again, whatever the events said (0: never). */
  SERVING_SNAPSHOT_SWEEP_MS: z.coerce.number().int().min(0).default(300_000),
  /** How long changes to one account are gathered before its campaigns are compiled again. */
  SERVING_SNAPSHOT_DEBOUNCE_MS: z.coerce.number().int().min(0).default(500),
});

export type ContentCreativeConfig = z.infer<typeof contentCreativeConfigSchema>;
