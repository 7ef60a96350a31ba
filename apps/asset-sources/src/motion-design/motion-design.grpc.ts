import type { Metadata } from '@platform/grpc';
import { PERMISSIONS } from '@contracts/domain';
import { assetSourcesV1 as v1 } from '@contracts/proto';
import { unary } from '@platform/grpc';
import type { Logger } from '@platform/logging';
import type { CallGuard } from '@platform/service';
import type { MotionDesignPeers, MotionDesignService } from './motion-design.service';

/** How a call asks the owners of campaigns and of the asset library: on behalf of its caller. */
export type MotionDesignPeersFor = (incoming: Metadata) => MotionDesignPeers;

export function motionDesignGrpc({
  logger,
  guard,
  motionDesign,
  motionDesignPeers,
}: {
  logger: Logger;
  guard: CallGuard;
  motionDesign: MotionDesignService;
  motionDesignPeers: MotionDesignPeersFor;
}): Pick<v1.AssetSourcesServiceServer, 'fillMotionDesignSource'> {
  return {
    fillMotionDesignSource: unary(logger, 'FillMotionDesignSource', async (request, call) => {
      guard.account(call, PERMISSIONS.assetSourcesEdit, request.accountId);
      const destinationAssetSourceId = await motionDesign.fill(
        request.accountId,
        request.destAssetSourceId,
        { campaignId: request.campaignId, destinationAssetSourceName: request.destinationAssetSourceName, assetSourceMap: request.assetSourceMap },
        motionDesignPeers(call.metadata),
      );
      return { destinationAssetSourceId };
    }),
  };
}
