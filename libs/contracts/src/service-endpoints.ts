import * as assetSourcesV1 from './gen/assetsources/v1/asset_sources';
import * as channelsPlansV1 from './gen/channelsplans/v1/channels_plans';
import * as contentCreativeV1 from './gen/contentcreative/v1/content_creative';
import * as storageLibraryV1 from './gen/storagelibrary/v1/storage_library';
import * as taggingTrackersV1 from './gen/taggingtrackers/v1/tagging_trackers';
import * as templatesV1 from './gen/templates/v1/templates';

/**
 * How to reach each gRPC service: the gateway's backend registry and a service calling a peer read
 * the same entry. Default ports are GRPC_PORT_BASE (50051) plus the service's offset in the
 * launcher's app registry (tools/launcher/apps.registry.ts).
 */
export const SERVICE_ENDPOINTS = {
  channelsPlans: {
    label: 'channels-plans',
    addressVariable: 'CHANNELS_PLANS_ADDR',
    defaultAddress: '127.0.0.1:50051',
    Client: channelsPlansV1.ChannelsPlansServiceClient,
    definition: channelsPlansV1.ChannelsPlansServiceService,
  },
  contentCreative: {
    label: 'content-creative',
    addressVariable: 'CONTENT_CREATIVE_ADDR',
    defaultAddress: '127.0.0.1:50052',
    Client: contentCreativeV1.ContentCreativeServiceClient,
    definition: contentCreativeV1.ContentCreativeServiceService,
  },
  assetSources: {
    label: 'asset-sources',
    addressVariable: 'ASSET_SOURCES_ADDR',
    defaultAddress: '127.0.0.1:50053',
    Client: assetSourcesV1.AssetSourcesServiceClient,
    definition: assetSourcesV1.AssetSourcesServiceService,
  },
  storageLibrary: {
    label: 'storage-library',
    addressVariable: 'STORAGE_LIBRARY_ADDR',
    defaultAddress: '127.0.0.1:50054',
    Client: storageLibraryV1.StorageLibraryServiceClient,
    definition: storageLibraryV1.StorageLibraryServiceService,
  },
  taggingTrackers: {
    label: 'tagging-trackers',
    addressVariable: 'TAGGING_TRACKERS_ADDR',
    defaultAddress: '127.0.0.1:50055',
    Client: taggingTrackersV1.TaggingTrackersServiceClient,
    definition: taggingTrackersV1.TaggingTrackersServiceService,
  },
  templates: {
    label: 'templates',
    addressVariable: 'TEMPLATES_ADDR',
    defaultAddress: '127.0.0.1:50056',
    Client: templatesV1.TemplatesServiceClient,
    definition: templatesV1.TemplatesServiceService,
  },
} as const;

export type ServiceKey = keyof typeof SERVICE_ENDPOINTS;
