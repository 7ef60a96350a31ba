import type { Metadata } from '@platform/grpc';
import { PERMISSIONS } from '@contracts/domain';
import { assetSourcesV1 as v1 } from '@contracts/proto';
import { unary } from '@platform/grpc';
import type { Logger } from '@platform/logging';
import type { CallGuard } from '@platform/service';
import type { CampaignCheck, MotionDesignService } from './motion-design.service';

/** How a call finds out whether a campaign exists: asked of the campaigns' owner on behalf of the caller. */
export type CampaignCheckFor = (incoming: Metadata) => CampaignCheck;

export function motionDesignGrpc({
  logger,
  guard,
  motionDesign,
  campaignCheck,
}: {
  logger: Logger;
  guard: CallGuard;
  motionDesign: MotionDesignService;
  campaignCheck: CampaignCheckFor;
}): Pick<v1.AssetSourcesServiceServer, 'fillMotionDesignSource'> {
  return {
    fillMotionDesignSource: unary(logger, 'FillMotionDesignSource', async (request, call) => {
      guard.account(call, PERMISSIONS.assetSourcesEdit, request.accountId);
      const destinationAssetSourceId = await motionDesign.fill(
        request.accountId,
        request.destAssetSourceId,
        { campaignId: request.campaignId, destinationAssetSourceName: request.destinationAssetSourceName, assetSourceMap: request.assetSourceMap },
        campaignCheck(call.metadata),
      );
      return { destinationAssetSourceId };
    }),
  };
}
