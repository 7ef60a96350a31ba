import { PERMISSIONS, type Permission } from './permissions';
import type { ChannelsPlansServiceService } from '../gen/channelsplans/v1/channels_plans';
import type { ContentCreativeServiceService } from '../gen/contentcreative/v1/content_creative';
import type { AssetSourcesServiceService } from '../gen/assetsources/v1/asset_sources';
import type { StorageLibraryServiceService } from '../gen/storagelibrary/v1/storage_library';
import type { TaggingTrackersServiceService } from '../gen/taggingtrackers/v1/tagging_trackers';
import type { TemplatesServiceService } from '../gen/templates/v1/templates';

/**
 * Who may call a gRPC method, declared once per method. A permission: the caller's key must hold it
 * (the service's guard checks it, and a gateway route calling the method reads its permission from
 * here; apps/gateway/src/routes/route-permissions.spec.ts checks every method the route calls agrees). `peer`: another service calls it
 * on behalf of the same caller, which already passed the permission of the operation it serves; only
 * the signed principal and the account scope are checked. `peer-reference`: a peer read of data that
 * belongs to no tenant; only the signed principal is checked.
 */
export type MethodAccess = Permission | 'peer' | 'peer-reference';

/** One declaration for each method of a generated service definition, no more and no fewer. */
export type ServiceAccess<D> = { readonly [K in keyof D]: MethodAccess };

/** channels-plans: every method of the service, by its key in the generated definition. */
export const CHANNELS_PLANS_ACCESS = {
  createAdGroup: PERMISSIONS.mediaPlanTagsCreate,
  listAdGroups: PERMISSIONS.mediaPlanTagsCreate,
  listAdServers: PERMISSIONS.adServersView,
  getAdServerCatalog: 'peer-reference',
  createMediaChannel: PERMISSIONS.mediaChannelAll,
  updateMediaChannel: PERMISSIONS.mediaChannelAll,
  listMediaChannels: PERMISSIONS.mediaChannelAll,
  getMediaChannel: PERMISSIONS.mediaChannelAll,
  deleteMediaChannel: PERMISSIONS.mediaChannelAll,
  getAdServerConnection: PERMISSIONS.mediaChannelAll,
  listTemplateCampaignMediaChannels: PERMISSIONS.mediaChannelView,
  createAutoMediaPlan: PERMISSIONS.campaignsList,
  getMediaPlan: PERMISSIONS.mediaPlanView,
  getBulkTagData: PERMISSIONS.mediaPlanView,
  getAdUnitDetails: PERMISSIONS.mediaPlanView,
  createPlacement: PERMISSIONS.mediaPlanEdit,
  updatePlacement: PERMISSIONS.mediaPlanEdit,
  listPlanPlacements: 'peer',
  markTagsPresent: 'peer',
  createRetailCampaign: PERMISSIONS.retailCampaignsEdit,
  listRetailCampaigns: PERMISSIONS.retailCampaignsView,
  getRetailCampaign: PERMISSIONS.retailCampaignsView,
  updateRetailCampaign: PERMISSIONS.retailCampaignsEdit,
  getCampaignFacts: 'peer',
} as const satisfies ServiceAccess<ChannelsPlansServiceService>;

/** content-creative: every method of the service, by its key in the generated definition. */
export const CONTENT_CREATIVE_ACCESS = {
  createDynamicCampaign: PERMISSIONS.dynamicCampaignsEdit,
  listDynamicCampaigns: PERMISSIONS.dynamicCampaignsView,
  getDynamicCampaign: PERMISSIONS.dynamicCampaignsView,
  deleteDynamicCampaign: PERMISSIONS.dynamicCampaignsEdit,
  saveContentMap: PERMISSIONS.mediaPlanEdit,
  getContentMap: PERMISSIONS.mediaPlanList,
  listDataSignals: PERMISSIONS.dataSignalsView,
  explainDecision: PERMISSIONS.dynamicCampaignsView,
  startExport: PERMISSIONS.campaignsCreate,
  getExportStatus: PERMISSIONS.campaignsCreate,
  getExportManifest: PERMISSIONS.campaignsCreate,
  getExportWork: 'peer',
  recordExportOutcome: 'peer',
  // The delivery counts of a retail campaign: read like the campaign itself.
  getCampaignDelivery: PERMISSIONS.retailCampaignsView,
} as const satisfies ServiceAccess<ContentCreativeServiceService>;

/** asset-sources: every method of the service, by its key in the generated definition. */
export const ASSET_SOURCES_ACCESS = {
  addLabel: PERMISSIONS.assetSourcesEdit,
  listLabels: PERMISSIONS.assetSourcesView,
  deleteLabel: PERMISSIONS.assetSourcesEdit,
  fillMotionDesignSource: PERMISSIONS.assetSourcesEdit,
  createRecommendationSource: PERMISSIONS.assetSourcesEdit,
  replaceRecommendationSource: PERMISSIONS.assetSourcesEdit,
  recordRecommendationEvent: PERMISSIONS.assetSourcesEdit,
  setRetailFeedSource: PERMISSIONS.assetSourcesEdit,
  getRetailFeedSource: PERMISSIONS.assetSourcesView,
  listRetailFeedValues: PERMISSIONS.assetSourcesView,
  describeAssetSources: 'peer',
  findAssetRows: 'peer',
  listAssetSources: PERMISSIONS.assetSourcesView,
  getAssetSource: PERMISSIONS.assetSourcesView,
  readAssetSourceData: PERMISSIONS.assetSourcesView,
  createInlineSource: PERMISSIONS.assetSourcesEdit,
  replaceInlineSource: PERMISSIONS.assetSourcesEdit,
  patchInlineSource: PERMISSIONS.assetSourcesEdit,
  createRemoteSource: PERMISSIONS.assetSourcesEdit,
  replaceRemoteSource: PERMISSIONS.assetSourcesEdit,
  processFeed: PERMISSIONS.assetSourcesEdit,
  createFeedSource: PERMISSIONS.assetSourcesEdit,
  replaceFeedSource: PERMISSIONS.assetSourcesEdit,
  confirmFeedVersion: PERMISSIONS.assetSourcesEdit,
  refreshFeedSource: PERMISSIONS.assetSourcesEdit,
  cancelFeedRun: PERMISSIONS.assetSourcesEdit,
  listFeedReport: PERMISSIONS.assetSourcesView,
  listFeedRuns: PERMISSIONS.assetSourcesView,
  listFeedDisabledRows: PERMISSIONS.assetSourcesView,
} as const satisfies ServiceAccess<AssetSourcesServiceService>;

/** storage-library: every method of the service, by its key in the generated definition. */
export const STORAGE_LIBRARY_ACCESS = {
  listAssets: PERMISSIONS.assetLibraryView,
  startUpload: PERMISSIONS.assetLibraryEdit,
  deleteAssets: PERMISSIONS.assetLibraryEdit,
  findLibraryFiles: 'peer',
  listCloudServices: PERMISSIONS.cloudStorageView,
  createCloudService: PERMISSIONS.cloudStorageEdit,
  renameCloudService: PERMISSIONS.cloudStorageEdit,
  deleteCloudService: PERMISSIONS.cloudStorageEdit,
  listCloudFiles: PERMISSIONS.cloudStorageView,
  copyFromCloud: PERMISSIONS.cloudStorageEdit,
  getQueue: PERMISSIONS.queuesView,
  recordQueuedJob: 'peer',
  readLibraryFile: 'peer',
  // Webhooks notify about the account's jobs of every kind: managed like the account's cloud storage settings.
  createWebhook: PERMISSIONS.cloudStorageEdit,
  listWebhooks: PERMISSIONS.cloudStorageView,
  getWebhook: PERMISSIONS.cloudStorageView,
  updateWebhook: PERMISSIONS.cloudStorageEdit,
  deleteWebhook: PERMISSIONS.cloudStorageEdit,
  listWebhookDeliveries: PERMISSIONS.cloudStorageView,
  replayWebhookDelivery: PERMISSIONS.cloudStorageEdit,
  listAccountAuditLog: PERMISSIONS.auditLogView,
  listOrgAuditLog: PERMISSIONS.auditLogView,
} as const satisfies ServiceAccess<StorageLibraryServiceService>;

/** tagging-trackers: every method of the service, by its key in the generated definition. */
export const TAGGING_TRACKERS_ACCESS = {
  listTagVariableMaps: PERMISSIONS.tagsView,
  createTagVariableMap: PERMISSIONS.tagsEdit,
  updateTagVariableMap: PERMISSIONS.tagsEdit,
  generateTag: PERMISSIONS.tagsEdit,
  listCampaignTags: PERMISSIONS.mediaPlanTagsDownload,
  getCampaignTrackers: PERMISSIONS.trackersView,
  getPlanTrackers: PERMISSIONS.trackersView,
  updatePlanTrackers: PERMISSIONS.trackersEdit,
  getServingTrackers: 'peer',
} as const satisfies ServiceAccess<TaggingTrackersServiceService>;

/** templates: every method of the service, by its key in the generated definition. */
export const TEMPLATES_ACCESS = {
  searchTemplates: PERMISSIONS.templatesView,
  createTemplate: PERMISSIONS.templatesEdit,
  updateTemplate: PERMISSIONS.templatesEdit,
  setBookmark: PERMISSIONS.templatesEdit,
  deleteTemplate: PERMISSIONS.templatesEdit,
  getTemplateVisibility: 'peer',
  getTemplateLayouts: 'peer',
} as const satisfies ServiceAccess<TemplatesServiceService>;

/** Every service's declarations, by the service's key in SERVICE_ENDPOINTS (@contracts/proto). */
export const SERVICE_ACCESS = {
  channelsPlans: CHANNELS_PLANS_ACCESS,
  contentCreative: CONTENT_CREATIVE_ACCESS,
  assetSources: ASSET_SOURCES_ACCESS,
  storageLibrary: STORAGE_LIBRARY_ACCESS,
  taggingTrackers: TAGGING_TRACKERS_ACCESS,
  templates: TEMPLATES_ACCESS,
} as const;
