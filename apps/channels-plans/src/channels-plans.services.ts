import type { SecretBox } from '@platform/secrets';
import type { ServiceDatabase } from '@platform/mysql';
import type { EventOutbox, ViewChangeAnnouncer } from '@platform/service';
import { AdGroupRepository } from './ad-groups/ad-group.repository';
import { AdGroupService } from './ad-groups/ad-group.service';
import { AdServerRepository } from './ad-servers/ad-server.repository';
import { AdServerService } from './ad-servers/ad-server.service';
import { AdUnitRepository } from './ad-units/ad-unit.repository';
import { AdUnitService } from './ad-units/ad-unit.service';
import { MediaChannelRepository } from './media-channels/media-channel.repository';
import { MediaChannelService } from './media-channels/media-channel.service';
import { MediaPlanRepository } from './media-plans/media-plan.repository';
import { MediaPlanService } from './media-plans/media-plan.service';
import { PlacementRepository } from './placements/placement.repository';
import { PlacementService } from './placements/placement.service';
import { RetailCampaignRepository } from './retail-campaigns/retail-campaign.repository';
import { RetailCampaignService } from './retail-campaigns/retail-campaign.service';

export interface ChannelsPlansServices {
  adServers: AdServerService;
  adUnits: AdUnitService;
  mediaChannels: MediaChannelService;
  retailCampaigns: RetailCampaignService;
  adGroups: AdGroupService;
  mediaPlans: MediaPlanService;
  placements: PlacementService;
}

/** Repositories and services over one database; the gRPC server and the specs build them the same way. */
export function createChannelsPlansServices(deps: {
  db: ServiceDatabase;
  events: EventOutbox;
  announceViewChange: ViewChangeAnnouncer;
  secrets: SecretBox;
  onsiteApiBaseUrl: string;
}): ChannelsPlansServices {
  const { db, events, announceViewChange, secrets, onsiteApiBaseUrl } = deps;
  const adServers = new AdServerService(new AdServerRepository(db.knex));
  const adGroupRepository = new AdGroupRepository(db);
  const retailCampaigns = new RetailCampaignService({
    knex: db.knex,
    announceViewChange,
    campaigns: new RetailCampaignRepository(db),
    adGroups: adGroupRepository,
    events,
  });
  const mediaChannels = new MediaChannelService({
    knex: db.knex,
    channels: new MediaChannelRepository(db),
    adServers,
    campaigns: retailCampaigns,
    secrets,
    events,
    announceViewChange,
    onsiteApiBaseUrl,
  });
  const adGroups = new AdGroupService({ knex: db.knex, events, adGroups: adGroupRepository, campaigns: retailCampaigns });
  const placementRepository = new PlacementRepository(db);
  const mediaPlans = new MediaPlanService({
    knex: db.knex,
    plans: new MediaPlanRepository(db),
    placements: placementRepository,
    campaigns: retailCampaigns,
    mediaChannels,
    events,
  });
  const adUnits = new AdUnitService(db.knex, new AdUnitRepository(db));
  const placements = new PlacementService({ knex: db.knex, events, placements: placementRepository, adServers, adUnits, campaigns: retailCampaigns });
  return { adServers, adUnits, mediaChannels, retailCampaigns, adGroups, mediaPlans, placements };
}
