import { contentCreativeV1 as v1 } from '@contracts/proto';
import type { PeerOf } from '@platform/grpc';
import type { Logger } from '@platform/logging';
import type { CallGuard } from '@platform/service';
import { campaignGrpc } from './campaigns/campaign.grpc';
import type { ContentCreativeServices } from './content-creative.services';
import { contentMapGrpc } from './content-maps/content-map.grpc';
import { dataSignalGrpc } from './data-signals/data-signal.grpc';
import { decisionGrpc } from './decisions/decision.grpc';
import { deliveryGrpc } from './delivery/delivery.grpc';
import { exportGrpc } from './exports/export.grpc';
import type { AssetSourcesPeer } from './peers/asset-sources.peer';
import type { ChannelsPlansPeer } from './peers/channels-plans.peer';
import type { StorageLibraryPeer } from './peers/storage-library.peer';

export interface ContentCreativePeers {
  assetSources: PeerOf<AssetSourcesPeer>;
  channelsPlans: PeerOf<ChannelsPlansPeer>;
  storageLibrary: PeerOf<StorageLibraryPeer>;
}

/** The whole ContentCreativeService: each feature brings the handlers of its operations. */
export function contentCreativeGrpc(
  deps: ContentCreativeServices & ContentCreativePeers & { logger: Logger; guard: CallGuard },
): v1.ContentCreativeServiceServer {
  return { ...dataSignalGrpc(deps), ...campaignGrpc(deps), ...contentMapGrpc(deps), ...decisionGrpc(deps), ...exportGrpc(deps), ...deliveryGrpc(deps) };
}
