import { ALL_PERMISSIONS } from '@contracts/domain';
import { adminRoutes } from '../identity/admin.routes';
import { assetSourceRoutes } from './asset-source.routes';
import { auditLogRoutes } from './audit-log.routes';
import { campaignRoutes } from './campaign.routes';
import { contentMapRoutes } from './content-map.routes';
import { deliveryRoutes } from './delivery.routes';
import { exportRoutes } from './export.routes';
import { feedProcessRoutes } from './feed-process.routes';
import { feedSourceRoutes } from './feed-source.routes';
import { mediaChannelRoutes } from './media-channel.routes';
import { mediaPlanRoutes } from './media-plan.routes';
import { placementRoutes } from './placement.routes';
import { retailCampaignRoutes } from './retail-campaign.routes';
import { retailFeedRoutes } from './retail-feed.routes';
import { RouteSpec } from './route.types';
import { storageRoutes } from './storage.routes';
import { taggingRoutes } from './tagging.routes';
import { trackerRoutes } from './tracker.routes';
import { templateRoutes } from './template.routes';
import { webhookRoutes } from './webhook.routes';

/** The one route table: every operation (the /v2 API and the admin API), who may call it, its tenant scope, its schemas and its handler. */
export const ROUTE_TABLE: RouteSpec[] = [
  ...mediaChannelRoutes,
  ...retailCampaignRoutes,
  ...mediaPlanRoutes,
  ...placementRoutes,
  ...templateRoutes,
  ...taggingRoutes,
  ...trackerRoutes,
  ...campaignRoutes,
  ...contentMapRoutes,
  ...exportRoutes,
  ...deliveryRoutes,
  ...storageRoutes,
  ...webhookRoutes,
  ...assetSourceRoutes,
  ...feedProcessRoutes,
  ...feedSourceRoutes,
  ...retailFeedRoutes,
  ...auditLogRoutes,
  ...adminRoutes,
];

/** Every permission a key may be granted: the shared catalog, which includes the ones no route uses yet. */
export function knownPermissions(routes: RouteSpec[] = ROUTE_TABLE): Set<string> {
  return new Set([...ALL_PERMISSIONS, ...routes.flatMap((r) => (r.permission ? [r.permission] : []))]);
}
