// Generated gRPC contracts; regenerate with `npm run proto:gen`, never edit files under gen/.
export * as channelsPlansV1 from './gen/channelsplans/v1/channels_plans';
export * as jobsV1 from './gen/platform/jobs/v1/job_progress';
export * as templatesV1 from './gen/templates/v1/templates';
export * as assetSourcesV1 from './gen/assetsources/v1/asset_sources';
export * as contentCreativeV1 from './gen/contentcreative/v1/content_creative';
export * as storageLibraryV1 from './gen/storagelibrary/v1/storage_library';
export * as taggingTrackersV1 from './gen/taggingtrackers/v1/tagging_trackers';
export { endpointServing, SERVICE_ENDPOINTS, type ServiceEndpointEntry, type ServiceKey } from './service-endpoints';
