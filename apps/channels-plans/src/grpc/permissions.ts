/**
 * Permissions this service checks. MediaChannel_All is named by interface.md; the others follow
 * the documented <Family>_View / <Family>_Edit convention (DESIGN.md section 2).
 */
export const mediaChannelPermissions = {
  mediaChannelAll: 'MediaChannel_All',
  mediaChannelView: 'MediaChannel_View',
  adServersView: 'AdServers_View',
  retailCampaignsView: 'RetailCampaigns_View',
  retailCampaignsEdit: 'RetailCampaigns_Edit',
} as const;
