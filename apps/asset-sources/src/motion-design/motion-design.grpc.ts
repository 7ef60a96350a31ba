import { ASSET_SOURCES_ACCESS } from '@contracts/domain';
import { assetSourcesV1 as v1 } from '@contracts/proto';
import type { PeerOf } from '@platform/grpc';
import type { Logger } from '@platform/logging';
import { unaryHandlers, type CallGuard } from '@platform/service';
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
  return unaryHandlers(v1.AssetSourcesServiceService, ASSET_SOURCES_ACCESS, logger, {
    fillMotionDesignSource: async (request, call) => {
      guard.account(call, request.accountId);
      const destinationAssetSourceId = await motionDesign.fill(
        request.accountId,
        request.destAssetSourceId,
        { campaignId: request.campaignId, destinationAssetSourceName: request.destinationAssetSourceName, assetSourceMap: request.assetSourceMap },
        { contentCreative: contentCreative(call), storageLibrary: storageLibrary(call) },
      );
      return { destinationAssetSourceId };
    },
  });
}
