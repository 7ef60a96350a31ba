import { assetSourcesV1, channelsPlansV1, contentCreativeV1 as v1 } from '@contracts/proto';
import type { PeerClient } from '@platform/grpc';
import type { Logger } from '@platform/logging';
import type { CallGuard } from '@platform/service';
import { campaignGrpc } from './campaigns/campaign.grpc';
import type { ContentCreativeServices } from './content-creative.services';
import { contentMapGrpc } from './content-maps/content-map.grpc';
import { dataSignalGrpc } from './data-signals/data-signal.grpc';
import { decisionGrpc } from './decisions/decision.grpc';

export interface ContentCreativePeers {
  assetSources: PeerClient<assetSourcesV1.AssetSourcesServiceClient>;
  channelsPlans: PeerClient<channelsPlansV1.ChannelsPlansServiceClient>;
}

/** The whole ContentCreativeService: each feature brings the handlers of its operations. */
export function contentCreativeGrpc(
  deps: ContentCreativeServices & ContentCreativePeers & { logger: Logger; guard: CallGuard },
): v1.ContentCreativeServiceServer {
  return { ...dataSignalGrpc(deps), ...campaignGrpc(deps), ...contentMapGrpc(deps), ...decisionGrpc(deps) };
}
