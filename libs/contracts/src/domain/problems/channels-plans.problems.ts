import { defineProblems } from './problem-entry';

/** Media channels, the ad-server catalog, retail campaigns, ad groups, media plans and placements. */
export const CHANNELS_PLANS_PROBLEMS = defineProblems({
  MEDIA_CHANNEL_NOT_FOUND: { status: 404, title: 'Media channel not found' },
  MEDIA_CHANNEL_NAME_TAKEN: { status: 409, title: 'The media channel name is taken' },
  ORG_NOT_RETAILER: { status: 403, title: 'The organization is not a retailer' },
  AD_SERVER_NOT_FOUND: { status: 404, title: 'Ad server not found' },
  RETAIL_CAMPAIGN_NOT_FOUND: { status: 404, title: 'Retail campaign not found' },
  RETAIL_CAMPAIGN_STATUS_TRANSITION_NOT_ALLOWED: { status: 409, title: 'The retail campaign cannot make this status move' },
  RETAIL_CAMPAIGN_NOT_AD_GROUP_CAMPAIGN: { status: 409, title: 'The retail campaign has no ad groups' },
  RETAIL_CAMPAIGN_NOT_ACTIVE: { status: 409, title: 'The retail campaign is not ACTIVE' },
  AD_GROUP_NAME_TAKEN: { status: 409, title: 'The ad group name is taken' },
  MEDIA_PLAN_NOT_FOUND: { status: 404, title: 'Media plan not found' },
  PLACEMENT_NOT_FOUND: { status: 404, title: 'Placement not found' },
  PLACEMENT_NAME_TAKEN: { status: 409, title: 'The placement name is taken on the site' },
});
