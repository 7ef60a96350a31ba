import type { Knex } from 'knex';
import { rowJsonPath } from './asset-source.model';

/**
 * The row fields whose distinct values a source keeps in asset_source_row_values, for the retail
 * feed list (products, categories, sub-categories): written beside the rows, so listing them never
 * reads a row and writing a row costs no per-row index entry for them.
 */
export const LISTED_FIELDS = ['sku', 'category', 'subCategory'] as const;
export type ListedField = (typeof LISTED_FIELDS)[number];

/** As the index held them: the first 255 characters. */
const VALUE_MAX = 255;
/** A value equal to one stored ignoring case replaces it only when it comes first in binary order. */
const KEEP_FIRST_SPELLING = 'ON DUPLICATE KEY UPDATE value = IF(BINARY VALUES(value) < BINARY value, VALUES(value), value)';
/** Values per INSERT. */
const WRITE_BATCH = 1_000;

/** The fields a source keeps: a source with an asset key column lists its products by key_value, so not sku. */
export const keptFields = (hasKeyColumn: boolean): readonly ListedField[] => (hasKeyColumn ? ['category', 'subCategory'] : LISTED_FIELDS);

/** A field's value as JSON_VALUE reads it from the row's JSON: a scalar's text, nothing for an object, an array or null. */
function listedValue(value: unknown): string | undefined {
  if (typeof value === 'string') return value.length > VALUE_MAX ? [...value].slice(0, VALUE_MAX).join('') : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** Values taken once are remembered (up to this many per field), so a category repeated in every batch is written once. */
const REMEMBERED_VALUES = 10_000;

/** The distinct values of the kept fields over rows seen since the last `take`, less those taken before (as far as remembered). */
export class RowValueCollector {
  private readonly seen = new Map<ListedField, Set<string>>();
  private readonly taken = new Map<ListedField, Set<string>>();

  constructor(private readonly fields: readonly ListedField[]) {
    for (const field of fields) {
      this.seen.set(field, new Set());
      this.taken.set(field, new Set());
    }
  }

  add(row: Readonly<Record<string, unknown>>): void {
    for (const field of this.fields) {
      const value = listedValue(row[field]);
      if (value !== undefined && value !== '' && !this.taken.get(field)?.has(value)) this.seen.get(field)?.add(value);
    }
  }

  /** The values collected, as [field, value] pairs; the collector starts empty again. */
  take(): [ListedField, string][] {
    const taken: [ListedField, string][] = [];
    for (const [field, values] of this.seen) {
      const remembered = this.taken.get(field) as Set<string>;
      for (const value of values) {
        taken.push([field, value]);
        if (remembered.size < REMEMBERED_VALUES) remembered.add(value);
      }
      values.clear();
    }
    return taken;
  }
}

/**
 * Adds values of a generation. Values equal ignoring case (the column's collation) are one value,
 * kept in their first spelling in binary order, as the list answers them.
 */
export async function addRowValues(
  knex: Knex | Knex.Transaction,
  assetSourceId: number,
  generation: number,
  values: readonly [ListedField, string][],
): Promise<void> {
  for (let from = 0; from < values.length; from += WRITE_BATCH) {
    const batch = values.slice(from, from + WRITE_BATCH);
    await knex.raw(
      `INSERT INTO asset_source_row_values (asset_source_id, generation, field, value) VALUES ${batch.map(() => '(?, ?, ?, ?)').join(', ')} ` +
        KEEP_FIRST_SPELLING,
      batch.flatMap(([field, value]) => [assetSourceId, generation, field, value]),
    );
  }
}

/**
 * Adds the values of rows already written (a generation's rows from `fromOrdinal` on), read from their
 * JSON by the database: for rows copied or re-keyed in SQL, which no collector saw.
 */
export async function addRowValuesFromRows(
  knex: Knex | Knex.Transaction,
  assetSourceId: number,
  fields: readonly ListedField[],
  { generation, fromOrdinal = 0 }: { generation?: number; fromOrdinal?: number } = {},
): Promise<void> {
  for (const field of fields) {
    await knex.raw(
      'INSERT INTO asset_source_row_values (asset_source_id, generation, field, value) ' +
        'SELECT asset_source_id, generation, ?, MIN(v COLLATE utf8mb4_bin) FROM (' +
        `SELECT asset_source_id, generation, LEFT(JSON_VALUE(row_json, ?), ${VALUE_MAX}) AS v FROM asset_source_rows ` +
        `WHERE asset_source_id = ? AND ordinal >= ?${generation === undefined ? '' : ' AND generation = ?'}) r ` +
        "WHERE v > '' GROUP BY asset_source_id, generation, v " +
        KEEP_FIRST_SPELLING,
      [field, rowJsonPath(field), assetSourceId, fromOrdinal, ...(generation === undefined ? [] : [generation])],
    );
  }
}

/** Drops the values of a generation (or of every generation, or of one field). */
export async function dropRowValues(
  knex: Knex | Knex.Transaction,
  assetSourceId: number,
  { generation, field }: { generation?: number; field?: ListedField } = {},
): Promise<void> {
  const query = knex('asset_source_row_values').where({ asset_source_id: assetSourceId });
  if (generation !== undefined) query.andWhere({ generation });
  if (field !== undefined) query.andWhere({ field });
  await query.delete();
}
