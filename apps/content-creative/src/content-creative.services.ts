import type { ServiceDatabase } from '@platform/mysql';
import { CampaignRepository } from './campaigns/campaign.repository';
import { CampaignService } from './campaigns/campaign.service';
import { DataSignalRepository } from './data-signals/data-signal.repository';
import { DataSignalService } from './data-signals/data-signal.service';

export interface ContentCreativeServices {
  dataSignals: DataSignalService;
  campaigns: CampaignService;
}

/** Repositories and services over one database; the gRPC server and the specs build them the same way. */
export function createContentCreativeServices(deps: { db: ServiceDatabase }): ContentCreativeServices {
  const dataSignals = new DataSignalService(new DataSignalRepository(deps.db));
  return { dataSignals, campaigns: new CampaignService(new CampaignRepository(deps.db), dataSignals) };
}
