import { taggingTrackersV1 as v1 } from '@contracts/proto';
import type { Logger } from '@platform/logging';
import type { CallGuard } from '@platform/service';
import type { PeerOf } from '@platform/grpc';
import type { ChannelsPlansPeer } from './peers/channels-plans.peer';
import { tagVariableMapGrpc } from './tag-variable-maps/tag-variable-map.grpc';
import { tagGrpc } from './tags/tag.grpc';
import { trackerGrpc } from './trackers/tracker.grpc';
import type { TaggingTrackersServices } from './tagging-trackers.services';

/** The whole TaggingTrackersService: each feature brings the handlers of its operations. */
export function taggingTrackersGrpc(
  deps: TaggingTrackersServices & { logger: Logger; guard: CallGuard; channelsPlans: PeerOf<ChannelsPlansPeer> },
): v1.TaggingTrackersServiceServer {
  return { ...tagVariableMapGrpc(deps), ...tagGrpc(deps), ...trackerGrpc(deps) };
}
