import type { Knex } from 'knex';
import type { PageWindow, ServiceDatabase } from '@platform/mysql';
import { SERVED_GENERATION } from '../sources/asset-source.repository';
import type { ListedField } from '../sources/row-values';

/**
 * Where the list reads a field's values: `key_value` (the asset key column's value), walked in the
 * (asset_source_id, generation, key_value) index of asset_source_rows, or a field kept in
 * asset_source_row_values (sku, category, subCategory), both for the generation the source serves.
 */
export type RetailFeedValueColumn = 'key_value' | ListedField;

/** A page of values, and whether more follow it. */
export interface ValuePage {
  items: string[];
  more: boolean;
}

/** `%`, `_` and the escape character itself match literally inside a LIKE pattern. */
const likeContaining = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export class RetailFeedRepository {
  constructor(private readonly db: ServiceDatabase) {}

  /** Designates the account's retail feed source; setting the same one again changes nothing. */
  async set(trx: Knex.Transaction, accountId: number, assetSourceId: number): Promise<void> {
    await trx.raw(
      'INSERT INTO retail_feed_settings (account_id, asset_source_id) VALUES (?, ?) ' +
        'ON DUPLICATE KEY UPDATE updated_at = IF(asset_source_id = VALUES(asset_source_id), updated_at, CURRENT_TIMESTAMP(3)), asset_source_id = VALUES(asset_source_id)',
      [accountId, assetSourceId],
    );
  }

  /** The account's setting as a change in `trx` sees it, row locked, for the audit trail's before and after. */
  async findForChange(trx: Knex.Transaction, accountId: number): Promise<{ accountId: number; assetSourceId: number; updatedAt: Date } | undefined> {
    const row = (await trx('retail_feed_settings').where({ account_id: accountId }).forUpdate().first()) as
      { account_id: number; asset_source_id: number; updated_at: Date } | undefined;
    return row && { accountId: Number(row.account_id), assetSourceId: Number(row.asset_source_id), updatedAt: row.updated_at };
  }

  async get(accountId: number): Promise<number | undefined> {
    const [row] = await this.db.execute<{ asset_source_id: number }>('SELECT asset_source_id FROM retail_feed_settings WHERE account_id = ?', [accountId]);
    return row && Number(row.asset_source_id);
  }

  /**
   * A page of the distinct non-blank values of `column` in the source's rows that contain `query` (empty:
   * every value). Compared with the schema's collation (utf8mb4_unicode_ci), so values equal ignoring
   * case are one value, shown in its first spelling in binary order. Read in the order of an index,
   * which is the answer's order: no row JSON is parsed, nothing is sorted, and the walk stops after
   * limit + 1 values (the extra one tells whether more follow), so the list is never counted.
   */
  async values(assetSourceId: number, column: RetailFeedValueColumn, query: string, window: PageWindow): Promise<ValuePage> {
    const like = (column: string) => (query === '' ? '' : ` AND ${column} LIKE ?`);
    const search = query === '' ? [] : [likeContaining(query)];
    const page = [window.limit + 1, window.offset];
    const rows =
      column === 'key_value'
        ? await this.db.execute<{ value: string }>(
            'SELECT MIN(key_value COLLATE utf8mb4_bin) AS value FROM asset_source_rows FORCE INDEX (ix_asset_source_rows_key) ' +
              `WHERE asset_source_id = ? AND generation = ${SERVED_GENERATION} AND key_value > ''${like('key_value')} ` +
              'GROUP BY key_value ORDER BY key_value LIMIT ? OFFSET ?',
            [assetSourceId, assetSourceId, ...search, ...page],
          )
        : await this.db.execute<{ value: string }>(
            `SELECT value FROM asset_source_row_values WHERE asset_source_id = ? AND generation = ${SERVED_GENERATION} AND field = ? ` +
              `AND value > ''${like('value')} ORDER BY value LIMIT ? OFFSET ?`,
            [assetSourceId, assetSourceId, column, ...search, ...page],
          );
    return { items: rows.slice(0, window.limit).map((row) => row.value), more: rows.length > window.limit };
  }
}
