import { SERVICE_ENDPOINTS } from '@contracts/proto';
import { z } from '@platform/config';
import { grpcServiceFields, peerAddressFields } from '@platform/service';

export const contentCreativeConfigSchema = z.object({
  ...grpcServiceFields,
  // Asset sources answer which sources and columns a campaign may name; channels-plans which placements and ad groups a content map may;
  // storage-library keeps the queue view a started export is handed to.
  ...peerAddressFields([SERVICE_ENDPOINTS.assetSources, SERVICE_ENDPOINTS.channelsPlans, SERVICE_ENDPOINTS.storageLibrary]),
});

export type ContentCreativeConfig = z.infer<typeof contentCreativeConfigSchema>;
