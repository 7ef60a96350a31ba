import type { FieldRecord, FieldTable } from '@contracts/domain';
import { readJsonColumn, writeJsonColumn } from './mysql.json-column';

/**
 * A repository's column list, row mapping and written columns, derived from the resource's field
 * table (@contracts/domain): a new column-backed field needs no repository edit.
 */
export interface FieldColumns<T extends FieldTable> {
  /** `a, b, c`: every column of the table, for SELECT lists (prefixed with `alias.` when given). */
  readonly selectList: string;
  /** A row read with `selectList` as the record. */
  toRecord(row: Record<string, unknown>): FieldRecord<T>;
  /** Column -> value for the record fields given (undefined ones left out); JSON values as text. */
  toColumns(values: object): Record<string, unknown>;
}

export function fieldColumns<T extends FieldTable>(table: T, alias?: string): FieldColumns<T> {
  const columns = Object.entries(table).flatMap(([name, field]) => (field.column === undefined ? [] : [{ name, field, column: field.column }]));
  return {
    selectList: columns.map(({ column }) => (alias === undefined ? column : `${alias}.${column}`)).join(', '),
    toRecord(row) {
      const record: Record<string, unknown> = {};
      for (const { name, field, column } of columns) {
        const value = row[column];
        if (value === null || value === undefined) record[name] = null;
        // BIGINT and DECIMAL may arrive as strings; ids here stay within 2^53.
        else if (field.kind === 'int') record[name] = Number(value);
        else if (field.kind === 'bool') record[name] = Boolean(value);
        else if (field.kind === 'json') record[name] = readJsonColumn(value);
        else record[name] = value;
      }
      return record as FieldRecord<T>;
    },
    toColumns(values) {
      const given = values as Record<string, unknown>;
      const written: Record<string, unknown> = {};
      for (const { name, field, column } of columns) {
        const value = given[name];
        if (value === undefined) continue;
        written[column] = field.kind === 'json' ? writeJsonColumn(value) : value;
      }
      return written;
    },
  };
}
