import type { Migration } from '@platform/mysql';
import { createCatalogAndMediaChannels } from './20261122100000_create_catalog_and_media_channels';
import { createRetailCampaignsAndMediaPlans } from './20261122100100_create_retail_campaigns_and_media_plans';
import { createAdGroupsSitesAndPlacements } from './20261123100000_create_ad_groups_sites_and_placements';
import { placementParamsTagsAndAdUnitCatalog } from './20261124100000_placement_params_tags_and_ad_unit_catalog';

/** Every schema change of this service, in order; the outbox migration comes from @platform/nats. */
export const CHANNELS_PLANS_MIGRATIONS: Migration[] = [
  createCatalogAndMediaChannels,
  createRetailCampaignsAndMediaPlans,
  createAdGroupsSitesAndPlacements,
  placementParamsTagsAndAdUnitCatalog,
];
