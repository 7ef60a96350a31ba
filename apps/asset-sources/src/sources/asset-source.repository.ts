import type { Knex } from 'knex';
import type { AssetSourceContentType, AssetSourceType, RemoteHttpMethod } from '@contracts/domain';
import { listWithTotalColumn, readJsonColumn, TOTAL_COLUMN, writeJsonColumn, type Page, type PageWindow, type ServiceDatabase } from '@platform/mysql';
import {
  KEY_VALUE_MAX,
  rowJsonPath,
  type AssetSourceRecord,
  type AssetSourceSummary,
  type RecommendationConfig,
  type SourceDefinition,
  type SourceRow,
  type StoredSource,
} from './asset-source.model';
import { addRowValues, addRowValuesFromRows, dropRowValues, keptFields, RowValueCollector } from './row-values';

interface SourceRowDb {
  asset_source_id: number;
  account_id: number;
  asset_source_type: AssetSourceType;
  asset_source_name: string;
  column_names: string;
  asset_key_column: string | null;
  asset_variant_column: string | null;
  asset_group_column: string | null;
  reporting_column: string | null;
  rotation_weight_column: string | null;
  content_type: AssetSourceContentType | null;
  row_count: number;
  remote_url: string | null;
  remote_http_method: RemoteHttpMethod | null;
  remote_additional_params: string | null;
  remote_cache_time: number | null;
  rows_fetched_at: Date | null;
  source_asset_source_id: number | null;
  update_frequency: number | null;
  recommendation_config: string | null;
  computed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** Rows per INSERT statement when a source's rows are written: well under max_allowed_packet for rows of up to 16 KiB. */
const INSERT_BATCH = 500;

const toRecord = (row: SourceRowDb): AssetSourceRecord => ({
  assetSourceId: Number(row.asset_source_id),
  accountId: Number(row.account_id),
  assetSourceType: row.asset_source_type,
  assetSourceName: row.asset_source_name,
  columnNames: readJsonColumn<string[]>(row.column_names) ?? [],
  columns: {
    assetKeyColumn: row.asset_key_column,
    assetVariantColumn: row.asset_variant_column,
    assetGroupColumn: row.asset_group_column,
    reportingColumn: row.reporting_column,
    rotationWeightColumn: row.rotation_weight_column,
  },
  contentType: row.content_type,
  rowCount: Number(row.row_count),
  remote:
    row.remote_url === null
      ? null
      : {
          url: row.remote_url,
          httpMethod: row.remote_http_method ?? 'GET',
          additionalParams: row.remote_additional_params ?? '',
          cacheTime: Number(row.remote_cache_time ?? 0),
        },
  rowsFetchedAt: row.rows_fetched_at,
  recommendation:
    row.source_asset_source_id === null
      ? null
      : {
          sourceAssetSourceId: Number(row.source_asset_source_id),
          updateFrequency: Number(row.update_frequency ?? 0),
          config: readJsonColumn<RecommendationConfig>(row.recommendation_config) as RecommendationConfig,
          computedAt: row.computed_at,
        },
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** A source's columns and special columns as stored. */
const columnSetColumns = ({ columnNames, columns }: Pick<SourceDefinition, 'columnNames' | 'columns'>) => ({
  column_names: writeJsonColumn(columnNames),
  asset_key_column: columns.assetKeyColumn,
  asset_variant_column: columns.assetVariantColumn,
  asset_group_column: columns.assetGroupColumn,
  reporting_column: columns.reportingColumn,
  rotation_weight_column: columns.rotationWeightColumn,
});

const columns = (source: StoredSource) => ({
  asset_source_type: source.assetSourceType,
  asset_source_name: source.assetSourceName,
  ...columnSetColumns(source),
  content_type: source.contentType,
  remote_url: source.remote?.url ?? null,
  remote_http_method: source.remote?.httpMethod ?? null,
  remote_additional_params: source.remote?.additionalParams ?? null,
  remote_cache_time: source.remote?.cacheTime ?? null,
  source_asset_source_id: source.recommendation?.sourceAssetSourceId ?? null,
  update_frequency: source.recommendation?.updateFrequency ?? null,
  recommendation_config: writeJsonColumn(source.recommendation?.config ?? null),
});

const keyValue = (row: SourceRow, keyColumn: string | null): string | null => {
  if (keyColumn === null) return null;
  const value = row[keyColumn];
  if (value === null || value === undefined) return null;
  return (typeof value === 'string' ? value : JSON.stringify(value)).slice(0, KEY_VALUE_MAX);
};

const PAGE_SQL =
  `SELECT asset_source_id, asset_source_name, asset_source_type, ` +
  `(SELECT COUNT(*) FROM asset_sources WHERE account_id = ?) AS ${TOTAL_COLUMN} ` +
  `FROM asset_sources WHERE account_id = ? ORDER BY asset_source_id LIMIT ? OFFSET ?`;
const COUNT_SQL = 'SELECT COUNT(*) AS total FROM asset_sources WHERE account_id = ?';
const GET_SQL = 'SELECT * FROM asset_sources WHERE asset_source_id = ? AND account_id = ?';
/**
 * The generation a source serves, read in the statement that reads its rows (one snapshot, so a read
 * never mixes two versions of a feed). A scalar subquery on the primary key: the optimizer reads it
 * first, as a constant, and the rows are then a range of an index led by (asset_source_id, generation).
 */
export const SERVED_GENERATION = '(SELECT row_generation FROM asset_sources WHERE asset_source_id = ?)';
// Ordinals are contiguous from 0 within a generation, so an offset is a range of the primary key: no rows are skipped over.
const ROWS_SQL = `SELECT row_json FROM asset_source_rows WHERE asset_source_id = ? AND generation = ${SERVED_GENERATION} AND ordinal >= ? AND ordinal < ? ORDER BY ordinal`;

/** The rows a source serves: those of its current generation (asset_source_rows holds a feed run's unapplied ones too). */
const servedRows = (knex: Knex, assetSourceId: number) =>
  knex('asset_source_rows')
    .where({ asset_source_id: assetSourceId })
    .where('generation', knex.raw(SERVED_GENERATION, [assetSourceId]));

export class AssetSourceRepository {
  constructor(private readonly db: ServiceDatabase) {}

  list(accountId: number, window: PageWindow): Promise<Page<AssetSourceSummary>> {
    type Row = Pick<SourceRowDb, 'asset_source_id' | 'asset_source_name' | 'asset_source_type'> & { [TOTAL_COLUMN]: number };
    return listWithTotalColumn<Row, AssetSourceSummary>(
      {
        rows: this.db.execute<Row>(PAGE_SQL, [accountId, accountId, window.limit, window.offset]),
        countWhenEmpty: () => this.db.execute(COUNT_SQL, [accountId]),
      },
      window,
      (row) => ({ assetSourceId: Number(row.asset_source_id), assetSourceName: row.asset_source_name, assetSourceType: row.asset_source_type }),
    );
  }

  /** The account's source, or undefined when it is missing or another account's. */
  async get(accountId: number, assetSourceId: number): Promise<AssetSourceRecord | undefined> {
    const [row] = await this.db.execute<SourceRowDb>(GET_SQL, [assetSourceId, accountId]);
    return row && toRecord(row);
  }

  async describe(accountId: number, assetSourceIds: readonly number[]): Promise<AssetSourceRecord[]> {
    if (assetSourceIds.length === 0) return [];
    const rows: SourceRowDb[] = await this.db
      .knex('asset_sources')
      .where({ account_id: accountId })
      .whereIn('asset_source_id', assetSourceIds)
      .orderBy('asset_source_id');
    return rows.map(toRecord);
  }

  /** The row texts of one page, in row order. */
  async readRows(assetSourceId: number, window: PageWindow): Promise<string[]> {
    const rows = await this.db.execute<{ row_json: string }>(ROWS_SQL, [assetSourceId, assetSourceId, window.offset, window.offset + window.limit]);
    return rows.map((row) => row.row_json);
  }

  /** Every row of a source, parsed, in row order (for the rules that look at all of them). */
  async allRows(assetSourceId: number): Promise<SourceRow[]> {
    const rows: { row_json: string }[] = await servedRows(this.db.knex, assetSourceId).orderBy('ordinal').select('row_json');
    return rows.map((row) => JSON.parse(row.row_json) as SourceRow);
  }

  /**
   * The first row (by order) per value whose `column` equals it. The asset key column is indexed;
   * any other column is compared inside the JSON of each row.
   */
  async findRows(source: AssetSourceRecord, column: string, values: readonly string[]): Promise<{ value: string; rowJson: string }[]> {
    if (values.length === 0) return [];
    const knex = this.db.knex;
    const keyed = column === source.columns.assetKeyColumn && values.every((v) => v.length <= KEY_VALUE_MAX);
    const query = servedRows(knex, source.assetSourceId).orderBy('ordinal');
    const path = rowJsonPath(column);
    if (keyed) query.whereIn('key_value', values).select('key_value as value', 'row_json');
    else
      query
        .whereRaw(`JSON_UNQUOTE(JSON_EXTRACT(row_json, ?)) IN (${values.map(() => '?').join(',')})`, [path, ...values])
        .select(knex.raw('JSON_UNQUOTE(JSON_EXTRACT(row_json, ?)) AS value', [path]), 'row_json');
    const rows: { value: string; row_json: string }[] = await query;
    const first = new Map<string, string>();
    for (const row of rows) if (!first.has(row.value)) first.set(row.value, row.row_json);
    return values.filter((v, i) => first.has(v) && values.indexOf(v) === i).map((value) => ({ value, rowJson: first.get(value) as string }));
  }

  /** The source as the transaction changing it sees it (row locked): the audit trail's before and after. */
  async findForChange(trx: Knex.Transaction, accountId: number, assetSourceId: number): Promise<AssetSourceRecord | undefined> {
    const [rows] = (await trx.raw(`${GET_SQL} FOR UPDATE`, [assetSourceId, accountId])) as [SourceRowDb[]];
    return rows[0] && toRecord(rows[0]);
  }

  /** Stores a new source with its rows (when given), in the caller's transaction. */
  async insert(trx: Knex.Transaction, accountId: number, source: StoredSource, rows?: readonly SourceRow[]): Promise<number> {
    const [id] = await trx('asset_sources').insert({ ...columns(source), account_id: accountId });
    if (rows) await this.writeRows(trx, Number(id), rows, source.columns.assetKeyColumn, { replacing: false });
    return Number(id);
  }

  /** Replaces every stored field of a source, and its rows when given, in the caller's transaction. */
  async update(
    trx: Knex.Transaction,
    assetSourceId: number,
    source: StoredSource,
    rows?: readonly SourceRow[],
    options: { keyColumnChanged?: boolean; extra?: Record<string, unknown> } = {},
  ): Promise<void> {
    await trx('asset_sources')
      .where({ asset_source_id: assetSourceId })
      .update({ ...columns(source), ...options.extra, updated_at: trx.raw('CURRENT_TIMESTAMP(3)') });
    if (rows) await this.writeRows(trx, assetSourceId, rows, source.columns.assetKeyColumn);
    else if (options.keyColumnChanged) await this.rekey(trx, assetSourceId, source.columns.assetKeyColumn);
  }

  /** A source's columns, its row locked until the caller's transaction ends (a feed's swap decides with them). */
  async lockColumns(trx: Knex.Transaction, assetSourceId: number): Promise<Pick<SourceDefinition, 'columnNames' | 'columns'>> {
    const [[row]] = (await trx.raw('SELECT * FROM asset_sources WHERE asset_source_id = ? FOR UPDATE', [assetSourceId])) as [[SourceRowDb?]];
    if (!row) throw new Error(`Asset source ${assetSourceId} no longer exists.`);
    const { columnNames, columns } = toRecord(row);
    return { columnNames, columns };
  }

  /** Sets a source's columns and special columns alone, its rows untouched (a feed version brings its own keys). */
  async setColumns(trx: Knex.Transaction, assetSourceId: number, columnSet: Pick<SourceDefinition, 'columnNames' | 'columns'>): Promise<void> {
    await trx('asset_sources').where({ asset_source_id: assetSourceId }).update(columnSetColumns(columnSet));
  }

  /** Replaces the rows of a source (a remote fetch, a recomputation) and stamps when, in the caller's transaction. */
  async replaceRows(
    trx: Knex.Transaction,
    assetSourceId: number,
    rows: readonly SourceRow[],
    keyColumn: string | null,
    stamp: 'rows_fetched_at' | 'computed_at',
    at: Date,
  ): Promise<void> {
    await this.writeRows(trx, assetSourceId, rows, keyColumn);
    await trx('asset_sources')
      .where({ asset_source_id: assetSourceId })
      .update({ [stamp]: at });
  }

  /** Recommendation sources built on a source. */
  async recommendationsOf(sourceAssetSourceId: number): Promise<AssetSourceRecord[]> {
    const rows: SourceRowDb[] = await this.db.knex('asset_sources').where({ source_asset_source_id: sourceAssetSourceId, asset_source_type: 'recommendation' });
    return rows.map(toRecord);
  }

  async recommendationsOfAccount(accountId: number): Promise<AssetSourceRecord[]> {
    const rows: SourceRowDb[] = await this.db.knex('asset_sources').where({ account_id: accountId, asset_source_type: 'recommendation' });
    return rows.map(toRecord);
  }

  /** Recommendation sources whose last computation is older than their update frequency. */
  async recommendationsDue(now: Date): Promise<AssetSourceRecord[]> {
    const rows: SourceRowDb[] = await this.db
      .knex('asset_sources')
      .where({ asset_source_type: 'recommendation' })
      .andWhere((due) => due.whereNull('computed_at').orWhereRaw('computed_at <= DATE_SUB(?, INTERVAL update_frequency HOUR)', [now]));
    return rows.map(toRecord);
  }

  private async writeRows(
    trx: Knex.Transaction,
    assetSourceId: number,
    rows: readonly SourceRow[],
    keyColumn: string | null,
    { replacing = true }: { replacing?: boolean } = {},
  ): Promise<void> {
    // A new source has no rows to delete, and the delete would lock the gap at the end of the index:
    // concurrent creates would each hold it and deadlock on each other's inserts. Rows written whole
    // replace every generation and are generation 0.
    if (replacing) {
      await trx('asset_source_rows').where({ asset_source_id: assetSourceId }).delete();
      await dropRowValues(trx, assetSourceId);
    }
    const values = new RowValueCollector(keptFields(keyColumn !== null));
    for (let start = 0; start < rows.length; start += INSERT_BATCH) {
      const batch = rows.slice(start, start + INSERT_BATCH).map((row, i) => {
        values.add(row);
        return {
          asset_source_id: assetSourceId,
          generation: 0,
          ordinal: start + i,
          key_value: keyValue(row, keyColumn),
          row_json: JSON.stringify(row),
        };
      });
      await trx('asset_source_rows').insert(batch);
    }
    await addRowValues(trx, assetSourceId, 0, values.take());
    await trx('asset_sources').where({ asset_source_id: assetSourceId }).update({ row_count: rows.length, row_generation: 0 });
  }

  /** The indexed key follows the asset key column when only the column changed. */
  private async rekey(trx: Knex.Transaction, assetSourceId: number, keyColumn: string | null): Promise<void> {
    // Without a key column the product list reads sku values, which a keyed source does not keep.
    await dropRowValues(trx, assetSourceId, { field: 'sku' });
    if (keyColumn === null) {
      await trx('asset_source_rows').where({ asset_source_id: assetSourceId }).update({ key_value: null });
      await addRowValuesFromRows(trx, assetSourceId, ['sku']);
      return;
    }
    await trx('asset_source_rows')
      .where({ asset_source_id: assetSourceId })
      .update({ key_value: trx.raw('LEFT(JSON_UNQUOTE(JSON_EXTRACT(row_json, ?)), ?)', [rowJsonPath(keyColumn), KEY_VALUE_MAX]) });
  }
}
