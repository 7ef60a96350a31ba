import { contentCreativeV1 as v1, SERVICE_ENDPOINTS } from '@contracts/proto';
import { adaptPeer } from '@platform/grpc';
import type { GrpcServiceSpec } from '@platform/service';
import { contentCreativeConfigSchema, type ContentCreativeConfig } from './content-creative.config';
import { contentCreativeGrpc } from './content-creative.grpc';
import { createContentCreativeServices } from './content-creative.services';
import { CONTENT_CREATIVE_MIGRATIONS } from './migrations';
import { assetSourcesPeer } from './peers/asset-sources.peer';
import { channelsPlansPeer } from './peers/channels-plans.peer';

/** What is particular to content-creative; @platform/service runs it like every other service. */
export const contentCreativeService: GrpcServiceSpec<ContentCreativeConfig, v1.ContentCreativeServiceServer> = {
  name: 'content-creative',
  configSchema: contentCreativeConfigSchema,
  database: { base: 'content_creative', migrations: CONTENT_CREATIVE_MIGRATIONS },
  // The data-signal catalog ships with the code; every start brings the stored one up to date.
  seed: ({ db }) => createContentCreativeServices({ db }).dataSignals.seedCatalog(),
  definition: v1.ContentCreativeServiceService,
  implementation: ({ logger, guard, db, connectPeer }) =>
    contentCreativeGrpc({
      logger,
      guard,
      ...createContentCreativeServices({ db }),
      assetSources: adaptPeer(connectPeer(SERVICE_ENDPOINTS.assetSources), assetSourcesPeer),
      channelsPlans: adaptPeer(connectPeer(SERVICE_ENDPOINTS.channelsPlans), channelsPlansPeer),
    }),
};
