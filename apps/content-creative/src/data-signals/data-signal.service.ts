import { effectivePage } from '@contracts/domain';
import type { Knex } from 'knex';
import { withTransaction, type Page } from '@platform/mysql';
import { DATA_SIGNAL_CATALOG } from './data-signal.catalog';
import type { DataSignalRecord } from './data-signal.model';
import type { DataSignalRepository } from './data-signal.repository';

/** The catalog as a lookup: signal id → property id → property. */
export type DataSignalIndex = ReadonlyMap<number, { record: DataSignalRecord; properties: ReadonlyMap<string, DataSignalRecord['properties'][number]> }>;

export class DataSignalService {
  constructor(
    private readonly knex: Knex,
    private readonly signals: DataSignalRepository,
  ) {}

  seedCatalog(): Promise<void> {
    return withTransaction(this.knex, (trx) => this.signals.upsertCatalog(trx, DATA_SIGNAL_CATALOG));
  }

  list(page: { offset?: number; limit?: number } | undefined): Promise<Page<DataSignalRecord>> {
    return this.signals.list(effectivePage(page));
  }

  /** Read per write rather than cached: the catalog is a handful of rows and a restart may have changed it. */
  async index(): Promise<DataSignalIndex> {
    const all = await this.signals.all();
    return new Map(all.map((record) => [record.dataSignalId, { record, properties: new Map(record.properties.map((p) => [p.propertyId, p])) }]));
  }
}
