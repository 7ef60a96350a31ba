import type { contentCreativeV1 } from '@contracts/proto';
import type { PromiseClient } from '@platform/grpc';

/** What asset-sources asks content-creative, which owns dynamic campaigns, on behalf of the caller of the operation it serves. */
export interface ContentCreativePeer {
  /** Resolves when the account has the dynamic campaign; rejects with content-creative's 404 (passed on as it is) when not. */
  requireDynamicCampaign(accountId: number, campaignId: number): Promise<void>;
}

export function contentCreativePeer(client: PromiseClient<contentCreativeV1.ContentCreativeServiceClient>): ContentCreativePeer {
  return {
    async requireDynamicCampaign(accountId, campaignId) {
      await client.getDynamicCampaign({ accountId, campaignId });
    },
  };
}
