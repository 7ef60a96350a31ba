import type { Knex } from 'knex';
import type { FeedMissingRowPolicy } from '@contracts/domain';
import type { ServiceDatabase } from '@platform/mysql';

export interface StagedRow {
  ordinal: number;
  line: number;
  keyValue: string | null;
  rowJson: string;
}

/** Staged rows per INSERT: a few hundred KB per statement for typical product rows. */
export const STAGE_BATCH = 1_000;

/**
 * The rows of a run while it reads (staged under its queue id, outside what is served), and the swap
 * that makes them the source's rows in one transaction, applying the source's missing-row policy.
 */
export class FeedRowsRepository {
  constructor(private readonly db: ServiceDatabase) {}

  async stage(queueId: string, rows: readonly StagedRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db
      .knex('feed_staged_rows')
      .insert(rows.map((r) => ({ queue_id: queueId, ordinal: r.ordinal, line: r.line, key_value: r.keyValue, row_json: r.rowJson })));
  }

  /** Drops a run's staged rows, a batch at a time so no statement holds a million row locks. */
  async dropStaged(queueId: string): Promise<void> {
    for (;;) {
      const deleted = await this.db.knex.raw('DELETE FROM feed_staged_rows WHERE queue_id = ? LIMIT 50000', [queueId]);
      if (Number((deleted as [{ affectedRows: number }])[0].affectedRows) === 0) return;
    }
  }

  /**
   * Staged rows whose key (and variant, when the source has a variant column) an earlier staged row
   * has, in feed order, a page after `afterOrdinal`. Found in the database (an index probe per row)
   * rather than in a set held in memory, so a run's memory does not grow with the feed. Keys are
   * compared exactly (the collation would take `a` and `A` for one key).
   */
  async duplicatesPage(
    queueId: string,
    variantColumn: string | null,
    afterOrdinal: number,
    limit: number,
  ): Promise<{ ordinal: number; line: number; keyValue: string }[]> {
    const variant = variantColumn === null ? '' : 'AND JSON_EXTRACT(f.row_json, ?) <=> JSON_EXTRACT(s.row_json, ?) ';
    const path = variantColumn === null ? [] : [`$.${JSON.stringify(variantColumn)}`, `$.${JSON.stringify(variantColumn)}`];
    const [rows] = (await this.db.knex.raw(
      'SELECT s.ordinal, s.line, s.key_value FROM feed_staged_rows s WHERE s.queue_id = ? AND s.ordinal > ? AND s.key_value IS NOT NULL ' +
        'AND EXISTS (SELECT 1 FROM feed_staged_rows f WHERE f.queue_id = s.queue_id AND f.key_value = s.key_value ' +
        `AND BINARY f.key_value = BINARY s.key_value AND f.ordinal < s.ordinal ${variant}) ORDER BY s.ordinal LIMIT ?`,
      [queueId, afterOrdinal, ...path, limit],
    )) as [{ ordinal: number; line: number; key_value: string }[]];
    return rows.map((r) => ({ ordinal: Number(r.ordinal), line: Number(r.line), keyValue: r.key_value }));
  }

  async stagedCount(queueId: string): Promise<number> {
    const [row] = await this.db.execute<{ n: number }>('SELECT COUNT(*) AS n FROM feed_staged_rows WHERE queue_id = ?', [queueId]);
    return Number(row?.n ?? 0);
  }

  /**
   * Makes a run's staged rows the source's rows, in the caller's transaction: rows whose key the new
   * version lacks follow `policy` (kept after the new rows, set aside as disabled, or dropped), the
   * disabled rows whose key is back are dropped from the side table, and row_count follows. Readers
   * see the old rows until the commit and the new ones after it. Answers the rows now served.
   */
  async swapIn(trx: Knex.Transaction, assetSourceId: number, queueId: string, keyed: boolean, policy: FeedMissingRowPolicy, at: Date): Promise<number> {
    const missing =
      'FROM asset_source_rows o WHERE o.asset_source_id = ? AND o.key_value IS NOT NULL ' +
      'AND NOT EXISTS (SELECT 1 FROM feed_staged_rows s WHERE s.queue_id = ? AND s.key_value = o.key_value)';
    if (keyed && policy === 'keep') {
      const [[{ n }]] = (await trx.raw('SELECT COUNT(*) AS n FROM feed_staged_rows WHERE queue_id = ?', [queueId])) as [[{ n: number }]];
      await trx.raw(
        `INSERT INTO feed_staged_rows (queue_id, ordinal, line, key_value, row_json) ` +
          `SELECT ?, ? + ROW_NUMBER() OVER (ORDER BY o.ordinal) - 1, 0, o.key_value, o.row_json ${missing}`,
        [queueId, Number(n), assetSourceId, queueId],
      );
    }
    if (keyed && policy === 'disable') {
      await trx.raw(
        `INSERT INTO feed_disabled_rows (asset_source_id, key_value, row_json) SELECT o.asset_source_id, o.key_value, o.row_json ${missing} ` +
          'ON DUPLICATE KEY UPDATE row_json = VALUES(row_json), disabled_at = CURRENT_TIMESTAMP(3)',
        [assetSourceId, queueId],
      );
      await trx.raw('DELETE d FROM feed_disabled_rows d JOIN feed_staged_rows s ON s.queue_id = ? AND s.key_value = d.key_value WHERE d.asset_source_id = ?', [
        queueId,
        assetSourceId,
      ]);
    } else {
      await trx('feed_disabled_rows').where({ asset_source_id: assetSourceId }).delete();
    }
    await trx('asset_source_rows').where({ asset_source_id: assetSourceId }).delete();
    await trx.raw(
      'INSERT INTO asset_source_rows (asset_source_id, ordinal, key_value, row_json) SELECT ?, ordinal, key_value, row_json FROM feed_staged_rows WHERE queue_id = ? ORDER BY ordinal',
      [assetSourceId, queueId],
    );
    const [[{ n: served }]] = (await trx.raw('SELECT COUNT(*) AS n FROM asset_source_rows WHERE asset_source_id = ?', [assetSourceId])) as [[{ n: number }]];
    await trx('asset_sources')
      .where({ asset_source_id: assetSourceId })
      .update({ row_count: Number(served), rows_fetched_at: at });
    return Number(served);
  }

  /** The rows the disable policy keeps aside (never served or mapped), by key. */
  async disabledKeys(assetSourceId: number): Promise<string[]> {
    const rows: { key_value: string }[] = await this.db
      .knex('feed_disabled_rows')
      .where({ asset_source_id: assetSourceId })
      .orderBy('key_value')
      .select('key_value');
    return rows.map((r) => r.key_value);
  }
}
