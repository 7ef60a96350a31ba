import type { Knex } from 'knex';
import type { AdServerKind } from '@contracts/domain';
import type { AdServerEntry } from './ad-server.model';

interface AdServerRow {
  ad_server_id: string;
  ad_server_name: string;
  kind: AdServerKind;
  logo_url: string;
}

const toEntry = (row: AdServerRow): AdServerEntry => ({
  adServerId: row.ad_server_id,
  adServerName: row.ad_server_name,
  kind: row.kind,
  logoUrl: row.logo_url,
});

export class AdServerRepository {
  constructor(private readonly knex: Knex) {}

  /** Inserts new entries and brings existing ones up to date; never deletes (channels reference them). */
  async upsert(entries: readonly AdServerEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const rows: AdServerRow[] = entries.map((e) => ({ ad_server_id: e.adServerId, ad_server_name: e.adServerName, kind: e.kind, logo_url: e.logoUrl }));
    await this.knex('ad_servers').insert(rows).onConflict('ad_server_id').merge(['ad_server_name', 'kind', 'logo_url']);
  }

  async list(): Promise<AdServerEntry[]> {
    const rows: AdServerRow[] = await this.knex('ad_servers').select('*').orderBy('ad_server_id');
    return rows.map(toEntry);
  }

  async find(adServerId: string): Promise<AdServerEntry | undefined> {
    const row: AdServerRow | undefined = await this.knex('ad_servers').where({ ad_server_id: adServerId }).first();
    return row && toEntry(row);
  }
}
