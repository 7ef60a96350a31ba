export interface AdGroupRecord {
  adGroupId: number;
  adGroupName: string;
}

/** A checked ad group, as the repository stores it. */
export interface NewAdGroup {
  accountId: number;
  retailCampaignId: number;
  adGroupName: string;
}
