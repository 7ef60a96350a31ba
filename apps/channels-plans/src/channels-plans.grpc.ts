import { channelsPlansV1 as v1 } from '@contracts/proto';
import type { Logger } from '@platform/logging';
import type { Metadata } from '@platform/grpc';
import type { CallGuard } from '@platform/service';
import { adGroupGrpc } from './ad-groups/ad-group.grpc';
import { adServerGrpc } from './ad-servers/ad-server.grpc';
import type { ChannelsPlansServices } from './channels-plans.services';
import { mediaPlanGrpc } from './media-plans/media-plan.grpc';
import { mediaChannelGrpc } from './media-channels/media-channel.grpc';
import { placementGrpc } from './placements/placement.grpc';
import { retailCampaignGrpc } from './retail-campaigns/retail-campaign.grpc';
import type { TemplateVisibility } from './retail-campaigns/template-visibility';

/** The whole ChannelsPlansService: each feature brings the handlers of its operations. */
export function channelsPlansGrpc(
  deps: ChannelsPlansServices & { logger: Logger; guard: CallGuard; templateVisibility: (incoming: Metadata) => TemplateVisibility },
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
