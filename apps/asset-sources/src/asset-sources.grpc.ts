import { assetSourcesV1 as v1 } from '@contracts/proto';
import type { Logger } from '@platform/logging';
import type { CallGuard } from '@platform/service';
import type { AssetSourcesServices } from './asset-sources.services';
import { feedProcessGrpc } from './feeds/feed-process.grpc';
import { feedSourceGrpc } from './feeds/feed-source.grpc';
import { labelGrpc } from './labels/label.grpc';
import type { PeerOf } from '@platform/grpc';
import { motionDesignGrpc } from './motion-design/motion-design.grpc';
import type { ContentCreativePeer } from './peers/content-creative.peer';
import type { StorageLibraryPeer } from './peers/storage-library.peer';
import { recommendationGrpc } from './recommendations/recommendation.grpc';
import { retailFeedGrpc } from './retail-feed/retail-feed.grpc';
import { assetSourceGrpc } from './sources/asset-source.grpc';

/** The whole AssetSourcesService: each feature brings the handlers of its operations. */
export function assetSourcesGrpc(
  deps: AssetSourcesServices & { logger: Logger; guard: CallGuard; contentCreative: PeerOf<ContentCreativePeer>; storageLibrary: PeerOf<StorageLibraryPeer> },
): v1.AssetSourcesServiceServer {
  return {
    ...assetSourceGrpc(deps),
    ...labelGrpc(deps),
    ...recommendationGrpc(deps),
    ...motionDesignGrpc(deps),
    ...retailFeedGrpc(deps),
    ...feedSourceGrpc(deps),
    ...feedProcessGrpc(deps),
  };
}
