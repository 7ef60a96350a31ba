import { CHANNELS_PLANS_EVENTS_STREAM } from '@contracts/domain';
import { channelsPlansV1 as v1, SERVICE_ENDPOINTS } from '@contracts/proto';
import { adaptPeer } from '@platform/grpc';
import { secretBoxFromConfig } from '@platform/secrets';
import type { GrpcServiceSpec } from '@platform/service';
import { AdServerRepository } from './ad-servers/ad-server.repository';
import { AdServerService } from './ad-servers/ad-server.service';
import { AdUnitRepository } from './ad-units/ad-unit.repository';
import { AdUnitService } from './ad-units/ad-unit.service';
import { channelsPlansConfigSchema, onsiteApiBaseUrl, type ChannelsPlansConfig } from './channels-plans.config';
import { channelsPlansGrpc } from './channels-plans.grpc';
import { createChannelsPlansServices } from './channels-plans.services';
import { CHANNELS_PLANS_MIGRATIONS } from './migrations';
import { templatesPeer } from './peers/templates.peer';

/** What is particular to channels-plans; @platform/service runs it like every other service. */
export const channelsPlansService: GrpcServiceSpec<ChannelsPlansConfig, v1.ChannelsPlansServiceServer> = {
  name: 'channels-plans',
  configSchema: channelsPlansConfigSchema,
  database: { base: 'channels_plans', migrations: CHANNELS_PLANS_MIGRATIONS },
  streams: [CHANNELS_PLANS_EVENTS_STREAM],
  // The ad-server and ad-unit catalogs ship with the code; every start brings the stored ones up to date.
  seed: async ({ config, db }) => {
    await new AdServerService(new AdServerRepository(db.knex)).seedCatalog(config.PUBLIC_BASE_URL);
    await new AdUnitService(db.knex, new AdUnitRepository(db)).seedCatalog();
  },
  definition: v1.ChannelsPlansServiceService,
  implementation: ({ config, logger, guard, db, events, announceViewChange, connectPeer }) => {
    const services = createChannelsPlansServices({
      db,
      events,
      announceViewChange,
      secrets: secretBoxFromConfig(config, (message) => logger.warn(message)),
      onsiteApiBaseUrl: onsiteApiBaseUrl(config),
    });
    // Campaigns built from a template ask templates whether the caller's account may use it.
    const templates = adaptPeer(connectPeer(SERVICE_ENDPOINTS.templates), templatesPeer);
    return channelsPlansGrpc({ logger, guard, templates, ...services });
  },
};
