import type { RetailCampaignStatus } from '@contracts/domain';
import type { AdGroupRecord } from '../ad-groups/ad-group.model';

export interface RetailCampaignRecord {
  retailCampaignId: number;
  accountId: number;
  campaignName: string;
  templateIdx: number | null;
  isAdGroupCampaign: boolean;
  isSbt: boolean;
  status: RetailCampaignStatus;
  createdAt: Date;
  updatedAt: Date;
}

/** What a caller asks to create; checked by the service. */
export interface CreateRetailCampaignInput {
  campaignName: string;
  templateIdx?: number;
  isAdGroupCampaign: boolean;
  isSbt: boolean;
}

/** Fields left undefined stay as they are; `status` is a move, checked against the allowed ones. */
export interface UpdateRetailCampaignInput {
  campaignName?: string;
  status?: string;
}

/** A checked campaign, as the repository stores it (new campaigns start in DRAFT). */
export interface NewRetailCampaign {
  accountId: number;
  campaignName: string;
  templateIdx: number | null;
  isAdGroupCampaign: boolean;
  isSbt: boolean;
}

export interface RetailCampaignChanges {
  campaignName?: string;
  status?: RetailCampaignStatus;
}

/** A campaign with its ad groups, as peers read it. */
export interface CampaignFacts extends RetailCampaignRecord {
  adGroups: AdGroupRecord[];
}
