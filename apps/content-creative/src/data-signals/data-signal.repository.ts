import type { Knex } from 'knex';
import { readJsonColumn, writeJsonColumn, type Page, type PageWindow, type ServiceDatabase } from '@platform/mysql';
import type { DataSignalPropertyRecord, DataSignalRecord } from './data-signal.model';

interface DataSignalRow {
  data_signal_id: number;
  data_signal_name: string;
  properties: string;
  total_count: number;
}

const toRecord = (row: DataSignalRow): DataSignalRecord => ({
  dataSignalId: Number(row.data_signal_id),
  dataSignalName: row.data_signal_name,
  properties: readJsonColumn<DataSignalPropertyRecord[]>(row.properties) ?? [],
});

// Page and total in one constant statement (a prepared statement on the server).
const PAGE_SQL =
  'SELECT data_signal_id, data_signal_name, properties, (SELECT COUNT(*) FROM data_signals) AS total_count FROM data_signals ORDER BY data_signal_id LIMIT ? OFFSET ?';

export class DataSignalRepository {
  constructor(private readonly db: ServiceDatabase) {}

  async list(window: PageWindow): Promise<Page<DataSignalRecord>> {
    const rows = await this.db.execute<DataSignalRow>(PAGE_SQL, [window.limit, window.offset]);
    if (rows.length > 0) return { items: rows.map(toRecord), total: Number(rows[0].total_count) };
    const [counted] = await this.db.execute<{ total: number }>('SELECT COUNT(*) AS total FROM data_signals', []);
    return { items: [], total: Number(counted?.total ?? 0) };
  }

  async all(): Promise<DataSignalRecord[]> {
    const rows: DataSignalRow[] = await this.db.knex('data_signals').select('*').orderBy('data_signal_id');
    return rows.map(toRecord);
  }

  async upsertCatalog(trx: Knex.Transaction, signals: readonly DataSignalRecord[]): Promise<void> {
    for (const signal of signals) {
      const row = { data_signal_id: signal.dataSignalId, data_signal_name: signal.dataSignalName, properties: writeJsonColumn(signal.properties) };
      await trx('data_signals')
        .insert(row)
        .onConflict('data_signal_id')
        .merge({ ...row, updated_at: trx.raw('CURRENT_TIMESTAMP(3)') });
    }
  }
}
