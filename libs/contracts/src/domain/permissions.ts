/**
 * Every permission a key can hold, declared once: the gateway checks them at the edge and lists
 * them in the OpenAPI document; each service re-checks the one of its operation. The eight
 * permissions the interface names gate exactly their operations; every other operation has a
 * `<Family>_View` / `<Family>_Edit` permission, and `<Family>_All` grants the whole family.
 */
export const PERMISSIONS = {
  // Named by the interface.
  mediaChannelAll: 'MediaChannel_All',
  campaignsList: 'Campaigns_List',
  mediaPlanView: 'MediaPlan_View',
  mediaPlanTagsCreate: 'MediaPlan_Tags_Create',
  mediaPlanList: 'MediaPlan_List',
  mediaPlanEdit: 'MediaPlan_Edit',
  campaignsCreate: 'Campaigns_Create',
  mediaPlanTagsDownload: 'MediaPlan_Tags_Download',
  // <Family>_View / <Family>_Edit for the rest.
  mediaChannelView: 'MediaChannel_View',
  adServersView: 'AdServers_View',
  retailCampaignsView: 'RetailCampaigns_View',
  retailCampaignsEdit: 'RetailCampaigns_Edit',
  templatesView: 'Templates_View',
  templatesEdit: 'Templates_Edit',
  dynamicCampaignsView: 'DynamicCampaigns_View',
  dynamicCampaignsEdit: 'DynamicCampaigns_Edit',
  dataSignalsView: 'DataSignals_View',
  assetSourcesView: 'AssetSources_View',
  assetSourcesEdit: 'AssetSources_Edit',
  tagsView: 'Tags_View',
  tagsEdit: 'Tags_Edit',
  trackersView: 'Trackers_View',
  trackersEdit: 'Trackers_Edit',
  assetLibraryView: 'AssetLibrary_View',
  assetLibraryEdit: 'AssetLibrary_Edit',
  cloudStorageView: 'CloudStorage_View',
  cloudStorageEdit: 'CloudStorage_Edit',
  queuesView: 'Queues_View',
  auditLogView: 'AuditLog_View',
} as const;

export type Permission = (typeof PERMISSIONS)[keyof typeof PERMISSIONS];

export const ALL_PERMISSIONS: readonly Permission[] = Object.values(PERMISSIONS);
