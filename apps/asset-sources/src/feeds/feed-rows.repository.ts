import type { Knex } from 'knex';
import type { FeedMissingRowPolicy } from '@contracts/domain';
import { listWithTotalQuery, LoadDataRows, writeJsonColumn, type Page, type PageWindow, type ServiceDatabase } from '@platform/mysql';
import { addRowValues, addRowValuesFromRows, dropRowValues, keptFields, type ListedField } from '../sources/row-values';
import { rowJsonPath } from '../sources/asset-source.model';
import type { FeedColumnSet } from './feed-source.model';
import { counted } from './counted';

export interface StagedRow {
  ordinal: number;
  keyValue: string | null;
  rowJson: string;
}

/** A row the disable policy keeps aside, as it was last served. */
export interface DisabledRow {
  keyValue: string;
  disabledAt: Date;
  rowJson: string;
}

/** A batch of a run's rows for `stage`, held as the load's text while it fills (see LoadDataRows). */
export class StagedRows {
  readonly data: LoadDataRows;

  /** `buffer`: one an earlier batch of the run gave back; else room for a full batch (the last rows added may pass STAGE_BATCH_BYTES by a chunk's worth). */
  constructor(
    private readonly assetSourceId: number,
    private readonly generation: number,
    buffer?: Buffer,
  ) {
    this.data = new LoadDataRows(buffer ?? STAGE_BATCH_BYTES + 512 * 1024);
  }

  static of(assetSourceId: number, generation: number, rows: readonly StagedRow[]): StagedRows {
    const staged = new StagedRows(assetSourceId, generation);
    for (const row of rows) staged.add(row.ordinal, row.keyValue, row.rowJson);
    return staged;
  }

  add(ordinal: number, keyValue: string | null, rowJson: string): void {
    this.data.add([this.assetSourceId, this.generation, ordinal, keyValue, rowJson]);
  }

  get count(): number {
    return this.data.count;
  }

  /** Bytes of text held. */
  get length(): number {
    return this.data.length;
  }
}

/** What a swap left serving, and what the missing-row policy did with the rows the new version lacks. */
export interface SwapOutcome {
  served: number;
  /** Rows of the previous version the keep policy appended (their key is not in the new version). */
  kept: number;
  /** Rows the disable policy holds aside after the swap, this run's and earlier runs' still missing. */
  disabled: number;
}

/** "N rows serving", and how many of them the keep policy carried over. */
export const servingSummary = ({ served, kept }: SwapOutcome): string =>
  `${counted(served, 'row')} serving${kept > 0 ? ` (${kept} kept from the previous version)` : ''}`;

/** What the disable policy holds aside, as a clause to end a message with (empty when nothing is). */
export const asideSummary = ({ disabled }: SwapOutcome): string =>
  disabled > 0 ? `; ${counted(disabled, 'row')} missing from the feed set aside (missingRowPolicy disable)` : '';

/**
 * An old row (`o.row_json`) as a row of these columns, as the feed's rows are projected: a column it
 * lacks is empty, one the columns no longer name is gone.
 */
const projectedRowJson = (columnNames: readonly string[]): { sql: string; bindings: string[] } => ({
  sql: `JSON_OBJECT(${columnNames.map(() => "?, COALESCE(JSON_UNQUOTE(JSON_EXTRACT(o.row_json, ?)), '')").join(', ')})`,
  bindings: columnNames.flatMap((column) => [column, rowJsonPath(column)]),
});

/** Rows per load of a run's rows: about 2 MB of text for typical product rows... */
export const STAGE_BATCH = 5_000;
/** ...and at most this many bytes of row text per load, whatever the rows' size. */
export const STAGE_BATCH_BYTES = 2 * 1024 * 1024;
const STAGE_COLUMNS = ['asset_source_id', 'generation', 'ordinal', 'key_value', 'row_json'];

/**
 * Two rows' keys are the same key, in SQL: equal by the bytes (`SKU1` is not `sku1`, `sku1 ` not `sku1`), as
 * the disable policy's primary key and the ingestion's key filter compare them. The first comparison is in
 * `asset_source_rows.key_value`'s own collation (utf8mb4_unicode_ci, which the retail feed list sorts and
 * filters by), so it probes `ix_asset_source_rows_key` (and feed_disabled_rows' exact key meets it); the
 * second keeps the matches that are exact.
 */
const sameKey = (row: string, other: string) =>
  `${row}.key_value = ${other}.key_value COLLATE utf8mb4_unicode_ci AND BINARY ${row}.key_value = BINARY ${other}.key_value`;
/** Rows deleted per statement when a generation is dropped: each a short transaction of its own. */
const DROP_BATCH = 10_000;

/**
 * The rows of a feed run. A run writes its rows once, into asset_source_rows under a generation of
 * its own (allocated per run, never reused), which no read sees: reads see the source's
 * `row_generation` only. The swap applies the source's missing-row policy and flips `row_generation`
 * in the caller's transaction; the generation it replaced is dropped afterwards, in batches.
 */
export class FeedRowsRepository {
  constructor(private readonly db: ServiceDatabase) {}

  /** A new generation for a run's rows, recorded on the run with the columns it reads the feed into, in the caller's transaction. */
  async newGeneration(trx: Knex.Transaction, assetSourceId: number, queueId: string, columns: FeedColumnSet): Promise<number> {
    await trx.raw('UPDATE feed_sources SET last_row_generation = last_row_generation + 1 WHERE asset_source_id = ?', [assetSourceId]);
    const [[row]] = (await trx.raw('SELECT last_row_generation AS g FROM feed_sources WHERE asset_source_id = ?', [assetSourceId])) as [[{ g: number }?]];
    if (!row) throw new Error(`Feed source ${assetSourceId} no longer exists.`);
    const generation = Number(row.g);
    await trx('feed_runs')
      .where({ queue_id: queueId })
      .update({ row_generation: generation, column_set: writeJsonColumn(columns) });
    return generation;
  }

  /** Writes a batch of a run's rows in one load, all or none. */
  async stage(rows: StagedRows): Promise<void> {
    await this.db.loadRows('asset_source_rows', STAGE_COLUMNS, rows.data);
  }

  /** Adds listed values of a run's generation (one write at a time: two writing the same values would deadlock). */
  async stageValues(assetSourceId: number, generation: number, values: readonly [ListedField, string][]): Promise<void> {
    await addRowValues(this.db.knex, assetSourceId, generation, values);
  }

  /**
   * Of the given rows of a generation (by ordinal), those whose key (and variant, when the source has
   * a variant column) an earlier row of the generation has, in feed order: an index probe per row.
   * Keys are compared exactly (`sameKey`); the EXISTS is correlated on the row's ordinal too, so MariaDB's
   * subquery cache (which compares the key in the column's collation) never answers one key for another.
   */
  async duplicatesOf(
    assetSourceId: number,
    generation: number,
    variantColumn: string | null,
    ordinals: readonly number[],
  ): Promise<{ ordinal: number; keyValue: string }[]> {
    if (ordinals.length === 0) return [];
    const variant = variantColumn === null ? '' : 'AND JSON_EXTRACT(f.row_json, ?) <=> JSON_EXTRACT(s.row_json, ?) ';
    const path = variantColumn === null ? [] : [rowJsonPath(variantColumn), rowJsonPath(variantColumn)];
    const [rows] = (await this.db.knex.raw(
      `SELECT s.ordinal, s.key_value FROM asset_source_rows s WHERE s.asset_source_id = ? AND s.generation = ? AND s.ordinal IN (${ordinals.map(() => '?').join(',')}) ` +
        'AND s.key_value IS NOT NULL AND EXISTS (SELECT 1 FROM asset_source_rows f FORCE INDEX (ix_asset_source_rows_key) WHERE f.asset_source_id = s.asset_source_id AND f.generation = s.generation ' +
        `AND ${sameKey('f', 's')} AND f.ordinal < s.ordinal ${variant}) ORDER BY s.ordinal`,
      [assetSourceId, generation, ...ordinals, ...path],
    )) as [{ ordinal: number; key_value: string }[]];
    return rows.map((r) => ({ ordinal: Number(r.ordinal), keyValue: r.key_value }));
  }

  /** Rows a run wrote that are not served (none once it is applied, or once they are dropped). */
  async stagedCount(queueId: string): Promise<number> {
    const [row] = await this.db.execute<{ n: number }>(
      'SELECT COUNT(*) AS n FROM feed_runs f JOIN asset_sources s ON s.asset_source_id = f.asset_source_id ' +
        'JOIN asset_source_rows r ON r.asset_source_id = f.asset_source_id AND r.generation = f.row_generation ' +
        'WHERE f.queue_id = ? AND f.row_generation <> s.row_generation',
      [queueId],
    );
    return Number(row?.n ?? 0);
  }

  /**
   * Drops the generations of a source no read sees and nothing waits on: neither served nor the one
   * the shrink guard holds. With `upTo`, only those not newer than it, so the clean-up after a run
   * never touches the generation a later run is writing. Each generation goes a batch at a time,
   * so no statement holds a million row locks.
   */
  async dropUnserved(assetSourceId: number, upTo?: number): Promise<void> {
    const [[kept]] = (await this.db.knex.raw(
      'SELECT s.row_generation AS served, h.row_generation AS held FROM asset_sources s LEFT JOIN feed_sources f ON f.asset_source_id = s.asset_source_id ' +
        'LEFT JOIN feed_runs h ON h.queue_id = f.held_queue_id WHERE s.asset_source_id = ?',
      [assetSourceId],
    )) as [[{ served: number; held: number | null }?]];
    if (!kept) return;
    const [present] = (await this.db.knex.raw('SELECT DISTINCT generation FROM asset_source_rows WHERE asset_source_id = ?', [assetSourceId])) as [
      { generation: number }[],
    ];
    const keep = new Set([Number(kept.served), kept.held === null ? -1 : Number(kept.held)]);
    for (const { generation } of present) {
      const g = Number(generation);
      if (keep.has(g) || (upTo !== undefined && g > upTo)) continue;
      await dropRowValues(this.db.knex, assetSourceId, { generation: g });
      for (;;) {
        const deleted = await this.db.knex.raw('DELETE FROM asset_source_rows WHERE asset_source_id = ? AND generation = ? LIMIT ?', [
          assetSourceId,
          g,
          DROP_BATCH,
        ]);
        if (Number((deleted as [{ affectedRows: number }])[0].affectedRows) < DROP_BATCH) break;
      }
    }
  }

  /** The generation a run wrote its rows under (null before it started writing). */
  async generationOf(queueId: string): Promise<{ assetSourceId: number; generation: number | null } | undefined> {
    const row = (await this.db.knex('feed_runs').where({ queue_id: queueId }).first('asset_source_id', 'row_generation')) as
      { asset_source_id: number; row_generation: number | null } | undefined;
    return row && { assetSourceId: Number(row.asset_source_id), generation: row.row_generation === null ? null : Number(row.row_generation) };
  }

  /**
   * Makes a generation the source's rows, in the caller's transaction: rows of the served generation
   * whose key the new one lacks follow `policy` (appended to it, set aside as disabled, or dropped
   * with the old generation), the disabled rows whose key is back are dropped from the side table, and
   * row_count follows. No row is copied for the default policy: the flip is an update of the source.
   * Readers see the old rows until the commit and the new ones after it. Answers the rows now served,
   * how many of them the keep policy carried over, and how many rows the disable policy holds aside.
   */
  async swapIn(
    trx: Knex.Transaction,
    assetSourceId: number,
    generation: number,
    keyed: boolean,
    policy: FeedMissingRowPolicy,
    at: Date,
    /** The new version's columns when they differ from those serving: rows the keep policy carries over are projected onto them. */
    projectKeptOnto: readonly string[] | null = null,
  ): Promise<SwapOutcome> {
    const [[current]] = (await trx.raw('SELECT row_generation FROM asset_sources WHERE asset_source_id = ? FOR UPDATE', [assetSourceId])) as [
      [{ row_generation: number }],
    ];
    const served = Number(current.row_generation);
    // The served rows whose key the new generation lacks, as an anti-join: a NOT EXISTS correlated on the key
    // alone would have MariaDB's subquery cache answer `sku` with what it found for `SKU` (it compares its keys
    // in the column's collation), whatever the exact comparison inside says. Bindings: generation, source, served.
    const missing =
      'FROM asset_source_rows o LEFT JOIN asset_source_rows s FORCE INDEX (ix_asset_source_rows_key) ' +
      `ON s.asset_source_id = o.asset_source_id AND s.generation = ? AND ${sameKey('s', 'o')} ` +
      'WHERE o.asset_source_id = ? AND o.generation = ? AND o.key_value IS NOT NULL AND s.asset_source_id IS NULL';
    let kept = 0;
    let disabled = 0;
    if (keyed && policy === 'keep' && served !== generation) {
      const stored = await this.rowsOf(trx, assetSourceId, generation);
      const keptRow = projectKeptOnto ? projectedRowJson(projectKeptOnto) : { sql: 'o.row_json', bindings: [] };
      const [copied] = (await trx.raw(
        'INSERT INTO asset_source_rows (asset_source_id, generation, ordinal, key_value, row_json) ' +
          `SELECT o.asset_source_id, ?, ? + ROW_NUMBER() OVER (ORDER BY o.ordinal) - 1, o.key_value, ${keptRow.sql} ${missing}`,
        [generation, stored, ...keptRow.bindings, generation, assetSourceId, served],
      )) as [{ affectedRows: number }];
      kept = Number(copied.affectedRows);
      await addRowValuesFromRows(trx, assetSourceId, keptFields(keyed), { generation, fromOrdinal: stored });
    }
    if (keyed && policy === 'disable') {
      if (served !== generation)
        await trx.raw(
          `INSERT INTO feed_disabled_rows (asset_source_id, key_value, row_json) SELECT o.asset_source_id, o.key_value, o.row_json ${missing} ` +
            'ON DUPLICATE KEY UPDATE row_json = VALUES(row_json), disabled_at = CURRENT_TIMESTAMP(3)',
          [generation, assetSourceId, served],
        );
      await trx.raw(
        `DELETE d FROM feed_disabled_rows d JOIN asset_source_rows s ON s.asset_source_id = d.asset_source_id AND s.generation = ? AND ${sameKey('s', 'd')} ` +
          'WHERE d.asset_source_id = ?',
        [generation, assetSourceId],
      );
      const [[aside]] = (await trx.raw('SELECT COUNT(*) AS n FROM feed_disabled_rows WHERE asset_source_id = ?', [assetSourceId])) as [[{ n: number }]];
      disabled = Number(aside.n);
    } else {
      await trx('feed_disabled_rows').where({ asset_source_id: assetSourceId }).delete();
    }
    await trx('feed_sources').where({ asset_source_id: assetSourceId }).update({ disabled_rows: disabled });
    const count = await this.rowsOf(trx, assetSourceId, generation);
    await trx('asset_sources').where({ asset_source_id: assetSourceId }).update({ row_generation: generation, row_count: count, rows_fetched_at: at });
    return { served: count, kept, disabled };
  }

  /** The rows of a generation: its ordinals run from 0 without gaps, so the highest answers (one index probe). */
  private async rowsOf(trx: Knex.Transaction, assetSourceId: number, generation: number): Promise<number> {
    const [[row]] = (await trx.raw('SELECT MAX(ordinal) AS top FROM asset_source_rows WHERE asset_source_id = ? AND generation = ?', [
      assetSourceId,
      generation,
    ])) as [[{ top: number | null }]];
    return row.top === null ? 0 : Number(row.top) + 1;
  }

  /** A page of the rows the disable policy keeps aside, by key (the table's primary key), with their count. */
  listDisabled(assetSourceId: number, window: PageWindow): Promise<Page<DisabledRow>> {
    const query = this.db
      .knex('feed_disabled_rows')
      .where({ asset_source_id: assetSourceId })
      .orderBy('key_value')
      .select('key_value', 'disabled_at', 'row_json');
    return listWithTotalQuery<{ key_value: string; disabled_at: Date; row_json: string }, DisabledRow>(query, window, (row) => ({
      keyValue: row.key_value,
      disabledAt: row.disabled_at,
      rowJson: row.row_json,
    }));
  }
}
