import type { Refusal } from './problems';
import type { RetailCampaignStatus } from './channels-plans';

/**
 * Rules about retail campaigns and their media plans that more than one service applies (channels-plans
 * owns the records; content-creative and tagging-trackers read them from it over gRPC). Pure: each
 * answers a Refusal or nothing, and the caller throws it with `enforce` from `@platform/errors`.
 */

/**
 * A plan is read through a campaign only if it is one of that campaign's plans; a plan of another
 * campaign answers as missing, so a caller learns nothing about where it is.
 */
export function planOutsideCampaign(plan: { retailCampaignId: number }, requested: { mediaPlanId: number; retailCampaignId: number }): Refusal | undefined {
  if (plan.retailCampaignId === requested.retailCampaignId) return undefined;
  return { code: 'MEDIA_PLAN_NOT_FOUND', detail: `Media plan ${requested.mediaPlanId} was not found in retail campaign ${requested.retailCampaignId}.` };
}

/** What only a live campaign may do (download its tags): any status but ACTIVE is a conflict with its state. */
export function campaignNotActive(campaign: { retailCampaignId: number; status: string }, action: string): Refusal | undefined {
  const active: RetailCampaignStatus = 'ACTIVE';
  if (campaign.status === active) return undefined;
  return {
    code: 'RETAIL_CAMPAIGN_NOT_ACTIVE',
    detail: `${action} only for an ACTIVE campaign; retail campaign ${campaign.retailCampaignId} is ${campaign.status}.`,
  };
}
