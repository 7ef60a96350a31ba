import { SERVICE_ENDPOINTS, taggingTrackersV1 as v1 } from '@contracts/proto';
import { adaptPeer } from '@platform/grpc';
import type { GrpcServiceSpec } from '@platform/service';
import { TAGGING_TRACKERS_MIGRATIONS } from './migrations';
import { channelsPlansPeer } from './peers/channels-plans.peer';
import { taggingTrackersConfigSchema, type TaggingTrackersConfig } from './tagging-trackers.config';
import { taggingTrackersGrpc } from './tagging-trackers.grpc';
import { createTaggingTrackersServices } from './tagging-trackers.services';

/** What is particular to tagging-trackers; @platform/service runs it like every other service. */
export const taggingTrackersService: GrpcServiceSpec<TaggingTrackersConfig, v1.TaggingTrackersServiceServer> = {
  name: 'tagging-trackers',
  configSchema: taggingTrackersConfigSchema,
  database: { base: 'tagging_trackers', migrations: TAGGING_TRACKERS_MIGRATIONS },
  definition: v1.TaggingTrackersServiceService,
  implementation: ({ config, logger, guard, db, events, connectPeer }) =>
    taggingTrackersGrpc({
      logger,
      guard,
      channelsPlans: adaptPeer(connectPeer(SERVICE_ENDPOINTS.channelsPlans), channelsPlansPeer),
      ...createTaggingTrackersServices({ db, publicBaseUrl: config.PUBLIC_BASE_URL, events }),
    }),
};
