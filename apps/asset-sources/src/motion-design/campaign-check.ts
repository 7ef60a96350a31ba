import type { contentCreativeV1 } from '@contracts/proto';
import type { Metadata, PeerClient } from '@platform/grpc';
import type { CampaignCheck } from './motion-design.service';

/**
 * content-creative owns dynamic campaigns: reading the campaign on behalf of the incoming caller
 * answers 404 (passed on as it is) when the account has no such campaign.
 */
export const campaignCheckFor =
  (contentCreative: PeerClient<contentCreativeV1.ContentCreativeServiceClient>) =>
  (incoming: Metadata): CampaignCheck =>
  async (accountId, campaignId) => {
    await contentCreative.as(incoming).getDynamicCampaign({ accountId, campaignId });
  };
