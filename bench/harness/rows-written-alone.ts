import { createConnection } from 'mysql2/promise';
import { createLogger } from '@platform/logging';
import { openOwnSchema } from '@platform/mysql';
import { InFlight, LOADS_IN_FLIGHT } from '../../apps/asset-sources/src/feeds/feed-ingest.job';
import { FeedRowsRepository, STAGE_BATCH, STAGE_BATCH_BYTES, StagedRows } from '../../apps/asset-sources/src/feeds/feed-rows.repository';
import { ASSET_SOURCES_MIGRATIONS } from '../../apps/asset-sources/src/migrations';
import { cpuTimeMs } from './cpu-time';
import { COLUMNS, productValues } from './product-feed';

export interface RowsWrittenAlone {
  seconds: number;
  /** CPU of mariadbd over the loads (NaN when /proc could not tell). */
  dbCpuMs: number;
}

/**
 * The database's share of an ingestion, measured alone: the rows the ingestion of the product feed
 * stores (the same JSON text, key and ordinals), already encoded, written into a fresh copy of
 * asset-sources' schema (its migrations: the same table, indexes and foreign key) the way the
 * ingestion writes them: its batches (StagedRows, STAGE_BATCH rows or STAGE_BATCH_BYTES), its load
 * (FeedRowsRepository.stage) and its loads in flight (InFlight, LOADS_IN_FLIGHT). No parsing, no
 * checks, no network: how fast the rows can go in at all on this machine, so the ingestion's ratio
 * can be read against what storing the rows alone leaves room for.
 */
export async function writeRowsAlone(options: {
  mysqlUrl: string;
  schemaPrefix: string;
  rows: number;
  mariadbPid: number | undefined;
}): Promise<RowsWrittenAlone> {
  const logger = createLogger({ service: 'bench', level: 'silent' });
  const db = await openOwnSchema({
    env: { MYSQL_URL: options.mysqlUrl, MYSQL_SCHEMA_PREFIX: options.schemaPrefix, NODE_ENV: 'development' },
    base: 'rows_alone',
    migrations: ASSET_SOURCES_MIGRATIONS,
    logger,
  });
  try {
    const [assetSourceId] = (await db.knex('asset_sources').insert({
      account_id: 1,
      asset_source_type: 'feed',
      asset_source_name: 'rows written alone',
      column_names: JSON.stringify(COLUMNS),
      asset_key_column: 'sku',
    })) as number[];
    const generation = 1;
    // Encoded before the clock starts: only the loads are timed.
    const batches: StagedRows[] = [];
    let batch = new StagedRows(assetSourceId, generation);
    for (let ordinal = 0; ordinal < options.rows; ordinal++) {
      const values = productValues(ordinal);
      const row: Record<string, string> = {};
      COLUMNS.forEach((column, k) => (row[column] = values[k]));
      batch.add(ordinal, row.sku, JSON.stringify(row));
      if (batch.count >= STAGE_BATCH || batch.length >= STAGE_BATCH_BYTES) {
        batches.push(batch);
        batch = new StagedRows(assetSourceId, generation);
      }
    }
    if (batch.count > 0) batches.push(batch);

    const store = new FeedRowsRepository(db);
    const cpuBefore = options.mariadbPid === undefined ? NaN : (cpuTimeMs(options.mariadbPid) ?? NaN);
    const begin = performance.now();
    const loads = new InFlight(LOADS_IN_FLIGHT);
    for (const rows of batches) await loads.add(store.stage(rows));
    await loads.drain();
    const seconds = (performance.now() - begin) / 1000;
    const dbCpuMs = options.mariadbPid === undefined ? NaN : (cpuTimeMs(options.mariadbPid) ?? NaN) - cpuBefore;
    const [[stored]] = (await db.knex.raw('SELECT COUNT(*) AS n FROM asset_source_rows WHERE asset_source_id = ?', [assetSourceId])) as [[{ n: number }]];
    if (Number(stored.n) !== options.rows) throw new Error(`the rows written alone are ${stored.n}, not ${options.rows}`);
    return { seconds, dbCpuMs };
  } finally {
    await db.close();
    // A million rows would take the database longer to delete than the schema takes to drop.
    const admin = await createConnection(options.mysqlUrl);
    await admin.query(`DROP DATABASE IF EXISTS \`${db.schema}\``).finally(() => admin.end());
  }
}
