import { PERMISSIONS } from '@contracts/domain';
import { assetSourcesV1 as v1 } from '@contracts/proto';
import { unary } from '@platform/grpc';
import type { PeerOf } from '@platform/grpc';
import type { Logger } from '@platform/logging';
import type { CallGuard } from '@platform/service';
import type { ContentCreativePeer } from '../peers/content-creative.peer';
import type { StorageLibraryPeer } from '../peers/storage-library.peer';
import type { MotionDesignService } from './motion-design.service';

export function motionDesignGrpc({
  logger,
  guard,
  motionDesign,
  contentCreative,
  storageLibrary,
}: {
  logger: Logger;
  guard: CallGuard;
  motionDesign: MotionDesignService;
  contentCreative: PeerOf<ContentCreativePeer>;
  storageLibrary: PeerOf<StorageLibraryPeer>;
}): Pick<v1.AssetSourcesServiceServer, 'fillMotionDesignSource'> {
  return {
    fillMotionDesignSource: unary(logger, 'FillMotionDesignSource', async (request, call) => {
      guard.account(call, PERMISSIONS.assetSourcesEdit, request.accountId);
      const destinationAssetSourceId = await motionDesign.fill(
        request.accountId,
        request.destAssetSourceId,
        { campaignId: request.campaignId, destinationAssetSourceName: request.destinationAssetSourceName, assetSourceMap: request.assetSourceMap },
        { contentCreative: contentCreative(call), storageLibrary: storageLibrary(call) },
      );
      return { destinationAssetSourceId };
    }),
  };
}
