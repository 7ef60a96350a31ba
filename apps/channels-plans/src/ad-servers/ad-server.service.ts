import { AD_SERVER_CATALOG } from './ad-server.catalog';
import type { AdServerEntry } from './ad-server.model';
import type { AdServerRepository } from './ad-server.repository';

/** The ad-server catalog: shipped with the code, stored so channels can reference it. */
export class AdServerService {
  constructor(private readonly adServers: AdServerRepository) {}

  /** Stores the shipped catalog with logo paths made absolute under the public base URL. */
  seedCatalog(publicBaseUrl: string, catalog: readonly AdServerEntry[] = AD_SERVER_CATALOG): Promise<void> {
    const base = publicBaseUrl.replace(/\/$/, '');
    return this.adServers.upsert(catalog.map((entry) => ({ ...entry, logoUrl: `${base}${entry.logoUrl}` })));
  }

  list(): Promise<AdServerEntry[]> {
    return this.adServers.list();
  }

  find(adServerId: string): Promise<AdServerEntry | undefined> {
    return this.adServers.find(adServerId);
  }
}
