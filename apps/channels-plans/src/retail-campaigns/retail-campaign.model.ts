import type { FieldChanges, FieldCreateInput, FieldCreateValues, FieldRecord, FieldUpdateInput, RETAIL_CAMPAIGN_FIELDS } from '@contracts/domain';
import type { AdGroupRecord } from '../ad-groups/ad-group.model';

// Every shape below derives from the campaign's field table (RETAIL_CAMPAIGN_FIELDS).
type Fields = typeof RETAIL_CAMPAIGN_FIELDS;

export type RetailCampaignRecord = FieldRecord<Fields>;

/** What a caller asks to create; checked by the service. */
export type CreateRetailCampaignInput = FieldCreateInput<Fields>;

/** Fields left undefined stay as they are; `status` is a move, checked against the allowed ones. */
export type UpdateRetailCampaignInput = FieldUpdateInput<Fields>;

/** A checked campaign, as the repository stores it (new campaigns start in DRAFT). */
export type NewRetailCampaign = FieldCreateValues<Fields> & { accountId: number };

export type RetailCampaignChanges = FieldChanges<Fields>;

/** A campaign with its ad groups, as peers read it. */
export type CampaignFacts = RetailCampaignRecord & { adGroups: AdGroupRecord[] };
