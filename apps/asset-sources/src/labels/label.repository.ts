import type { Knex } from 'knex';
import { listWithTotalColumn, TOTAL_COLUMN, type Page, type PageWindow, type ServiceDatabase } from '@platform/mysql';

const PAGE_SQL =
  `SELECT label, (SELECT COUNT(*) FROM asset_source_labels WHERE asset_source_id = ?) AS ${TOTAL_COLUMN} ` +
  'FROM asset_source_labels WHERE asset_source_id = ? ORDER BY label LIMIT ? OFFSET ?';
const COUNT_SQL = 'SELECT COUNT(*) AS total FROM asset_source_labels WHERE asset_source_id = ?';

export class LabelRepository {
  constructor(private readonly db: ServiceDatabase) {}

  /** False when the source already had the label. */
  async add(trx: Knex.Transaction, assetSourceId: number, label: string): Promise<boolean> {
    const [result] = (await trx.raw('INSERT IGNORE INTO asset_source_labels (asset_source_id, label) VALUES (?, ?)', [assetSourceId, label])) as [
      { affectedRows: number },
    ];
    return result.affectedRows > 0;
  }

  list(assetSourceId: number, window: PageWindow): Promise<Page<string>> {
    return listWithTotalColumn<{ label: string; [TOTAL_COLUMN]: number }, string>(
      {
        rows: this.db.execute(PAGE_SQL, [assetSourceId, assetSourceId, window.limit, window.offset]),
        countWhenEmpty: () => this.db.execute(COUNT_SQL, [assetSourceId]),
      },
      window,
      (row) => row.label,
    );
  }

  /** False when the source had no such label. */
  async delete(trx: Knex.Transaction, assetSourceId: number, label: string): Promise<boolean> {
    return (await trx('asset_source_labels').where({ asset_source_id: assetSourceId, label }).delete()) > 0;
  }
}
