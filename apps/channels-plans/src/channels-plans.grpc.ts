import { channelsPlansV1 as v1 } from '@contracts/proto';
import type { Logger } from '@platform/logging';
import type { PeerOf } from '@platform/grpc';
import type { CallGuard } from '@platform/service';
import { adGroupGrpc } from './ad-groups/ad-group.grpc';
import { adServerGrpc } from './ad-servers/ad-server.grpc';
import type { ChannelsPlansServices } from './channels-plans.services';
import { mediaPlanGrpc } from './media-plans/media-plan.grpc';
import type { TemplatesPeer } from './peers/templates.peer';
import { mediaChannelGrpc } from './media-channels/media-channel.grpc';
import { placementGrpc } from './placements/placement.grpc';
import { retailCampaignGrpc } from './retail-campaigns/retail-campaign.grpc';

/** The whole ChannelsPlansService: each feature brings the handlers of its operations. */
export function channelsPlansGrpc(
  deps: ChannelsPlansServices & { logger: Logger; guard: CallGuard; templates: PeerOf<TemplatesPeer> },
): v1.ChannelsPlansServiceServer {
  return {
    ...adServerGrpc(deps),
    ...mediaChannelGrpc(deps),
    ...retailCampaignGrpc(deps),
    ...adGroupGrpc(deps),
    ...mediaPlanGrpc(deps),
    ...placementGrpc(deps),
  };
}
