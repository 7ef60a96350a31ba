import { mediaChannelRoutes } from './media-channel.routes';
import { retailCampaignRoutes } from './retail-campaign.routes';
import { RouteSpec } from './route.types';

/** The one route table: every /v2 operation, its permission, its schemas and its backend call. */
export const ROUTE_TABLE: RouteSpec[] = [...mediaChannelRoutes, ...retailCampaignRoutes];

/** The eight permissions interface.md names, grantable even before their operations are routed. */
const INTERFACE_PERMISSIONS = [
  'MediaChannel_All',
  'Campaigns_List',
  'MediaPlan_View',
  'MediaPlan_Tags_Create',
  'MediaPlan_List',
  'MediaPlan_Edit',
  'Campaigns_Create',
  'MediaPlan_Tags_Download',
];

export function knownPermissions(routes: RouteSpec[] = ROUTE_TABLE): Set<string> {
  return new Set([...INTERFACE_PERMISSIONS, ...routes.map((r) => r.permission)]);
}
