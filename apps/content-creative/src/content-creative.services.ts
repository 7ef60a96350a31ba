import type { Logger } from '@platform/logging';
import type { ServiceDatabase } from '@platform/mysql';
import type { EventOutbox, ViewChangeAnnouncer } from '@platform/service';
import { CampaignRepository } from './campaigns/campaign.repository';
import { CampaignService } from './campaigns/campaign.service';
import { ContentMapRepository } from './content-maps/content-map.repository';
import { ContentMapService } from './content-maps/content-map.service';
import { DecisionService } from './decisions/decision.service';
import { DeliveryRepository } from './delivery/delivery.repository';
import { DeliveryService } from './delivery/delivery.service';
import { DataSignalRepository } from './data-signals/data-signal.repository';
import { DataSignalService } from './data-signals/data-signal.service';
import { ExportRepository } from './exports/export.repository';
import { ExportService } from './exports/export.service';

export interface ContentCreativeServices {
  dataSignals: DataSignalService;
  campaigns: CampaignService;
  contentMaps: ContentMapService;
  decisions: DecisionService;
  exports: ExportService;
  delivery: DeliveryService;
}

/** Repositories and services over one database; the gRPC server and the specs build them the same way. */
export function createContentCreativeServices(deps: {
  db: ServiceDatabase;
  events: EventOutbox;
  announceViewChange: ViewChangeAnnouncer;
  logger: Logger;
}): ContentCreativeServices {
  const dataSignals = new DataSignalService(deps.db.knex, new DataSignalRepository(deps.db));
  const campaigns = new CampaignService(deps.db.knex, deps.events, new CampaignRepository(deps.db), dataSignals);
  const mapRepository = new ContentMapRepository(deps.db);
  const exports = new ExportService(deps.db.knex, deps.events, new ExportRepository(deps.db), mapRepository, deps.announceViewChange, deps.logger);
  return {
    dataSignals,
    campaigns,
    decisions: new DecisionService(campaigns),
    contentMaps: new ContentMapService(deps.db.knex, deps.events, mapRepository, exports),
    exports,
    delivery: new DeliveryService(deps.db.knex, new DeliveryRepository(deps.db), deps.logger),
  };
}
