import { SERVICE_ENDPOINTS } from '@contracts/proto';
import { url, z } from '@platform/config';
import { grpcServiceFields, peerAddressFields } from '@platform/service';

export const taggingTrackersConfigSchema = z.object({
  ...grpcServiceFields,
  ...peerAddressFields([SERVICE_ENDPOINTS.channelsPlans]),
  /** Tags point at the platform's serving paths under this base (`<base>/serve/v1/...`). */
  PUBLIC_BASE_URL: url('http://localhost:8080', ['http', 'https']),
});

export type TaggingTrackersConfig = z.infer<typeof taggingTrackersConfigSchema>;
