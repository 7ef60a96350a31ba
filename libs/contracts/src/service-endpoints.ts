import * as assetSourcesV1 from './gen/assetsources/v1/asset_sources';
import * as channelsPlansV1 from './gen/channelsplans/v1/channels_plans';
import * as contentCreativeV1 from './gen/contentcreative/v1/content_creative';
import * as storageLibraryV1 from './gen/storagelibrary/v1/storage_library';
import * as taggingTrackersV1 from './gen/taggingtrackers/v1/tagging_trackers';
import * as templatesV1 from './gen/templates/v1/templates';

/** An entry plus the address a peer on the same machine dials when `<NAME>_ADDR` is unset. */
const endpoint = <const E extends { label: string; addressVariable: string; port: number }>(entry: E) => ({
  ...entry,
  defaultAddress: `127.0.0.1:${entry.port}`,
});

/**
 * Each gRPC service, declared once: the gateway's backend registry and a service calling a peer
 * read the same entry, and `port` is where the service listens unless GRPC_PORT says otherwise.
 * The launcher and the images derive from these ports; compose, the Kubernetes manifests and the
 * READMEs are checked against them by the tests in tools/build.
 */
export const SERVICE_ENDPOINTS = {
  channelsPlans: endpoint({
    label: 'channels-plans',
    addressVariable: 'CHANNELS_PLANS_ADDR',
    port: 50051,
    Client: channelsPlansV1.ChannelsPlansServiceClient,
    definition: channelsPlansV1.ChannelsPlansServiceService,
  }),
  contentCreative: endpoint({
    label: 'content-creative',
    addressVariable: 'CONTENT_CREATIVE_ADDR',
    port: 50052,
    Client: contentCreativeV1.ContentCreativeServiceClient,
    definition: contentCreativeV1.ContentCreativeServiceService,
  }),
  assetSources: endpoint({
    label: 'asset-sources',
    addressVariable: 'ASSET_SOURCES_ADDR',
    port: 50053,
    Client: assetSourcesV1.AssetSourcesServiceClient,
    definition: assetSourcesV1.AssetSourcesServiceService,
  }),
  storageLibrary: endpoint({
    label: 'storage-library',
    addressVariable: 'STORAGE_LIBRARY_ADDR',
    port: 50054,
    Client: storageLibraryV1.StorageLibraryServiceClient,
    definition: storageLibraryV1.StorageLibraryServiceService,
  }),
  taggingTrackers: endpoint({
    label: 'tagging-trackers',
    addressVariable: 'TAGGING_TRACKERS_ADDR',
    port: 50055,
    Client: taggingTrackersV1.TaggingTrackersServiceClient,
    definition: taggingTrackersV1.TaggingTrackersServiceService,
  }),
  templates: endpoint({
    label: 'templates',
    addressVariable: 'TEMPLATES_ADDR',
    port: 50056,
    Client: templatesV1.TemplatesServiceClient,
    definition: templatesV1.TemplatesServiceService,
  }),
} as const;

export type ServiceKey = keyof typeof SERVICE_ENDPOINTS;
export type ServiceEndpointEntry = (typeof SERVICE_ENDPOINTS)[ServiceKey];

/** The entry of the service a generated service definition belongs to, if it is one of ours. */
export function endpointServing(definition: object): ServiceEndpointEntry | undefined {
  return Object.values(SERVICE_ENDPOINTS).find((entry) => entry.definition === definition);
}
