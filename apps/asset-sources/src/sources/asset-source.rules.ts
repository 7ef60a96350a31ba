import {
  ASSET_SOURCE_COLUMN_NAME_MAX,
  ASSET_SOURCE_COLUMNS_MAX,
  ASSET_SOURCE_CONTENT_TYPES,
  ASSET_SOURCE_NAME_MAX,
  ASSET_SOURCE_ROW_MAX_BYTES,
  ASSET_SOURCE_ROWS_MAX,
  ASSET_SOURCE_SPECIAL_COLUMNS,
} from '@contracts/domain';
import { blankOrTooLong, notOneOf, type FieldError } from '@platform/errors';
import type { SourceDefinition, SourceRow, SpecialColumns } from './asset-source.model';

/** Field errors reported for the rows of one request; past this many the rest are not listed. */
export const MAX_ROW_ERRORS = 20;

/** A member name as a JSON pointer token (RFC 6901). */
export const pointerToken = (name: string) => name.replace(/~/g, '~0').replace(/\//g, '~1');

/** A value a rotation weight may hold: a finite number, or text that reads as one, not negative. */
export function isNumericWeight(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0;
  if (typeof value !== 'string' || value.trim() === '') return false;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0;
}

export function columnNameErrors(columnNames: readonly string[]): FieldError[] {
  if (columnNames.length === 0) return [{ pointer: '/columnNames', code: 'REQUIRED', detail: 'columnNames must name at least one column.' }];
  if (columnNames.length > ASSET_SOURCE_COLUMNS_MAX)
    return [{ pointer: '/columnNames', code: 'TOO_MANY_ITEMS', detail: `columnNames may hold at most ${ASSET_SOURCE_COLUMNS_MAX} items.` }];
  const seen = new Set<string>();
  return columnNames.flatMap((name, i) => {
    const errors = blankOrTooLong(`/columnNames/${i}`, name, ASSET_SOURCE_COLUMN_NAME_MAX);
    if (errors.length === 0 && seen.has(name))
      return [{ pointer: `/columnNames/${i}`, code: 'DUPLICATE', detail: `Column ${JSON.stringify(name)} is named twice.` }];
    seen.add(name);
    return errors;
  });
}

/** The key, variant, group, reporting and rotation-weight columns must each be one of the columns. */
export function specialColumnErrors(columns: SpecialColumns, columnNames: readonly string[]): FieldError[] {
  return ASSET_SOURCE_SPECIAL_COLUMNS.flatMap((field) => {
    const column = columns[field];
    if (column === null || columnNames.includes(column)) return [];
    return [{ pointer: `/${field}`, code: 'UNKNOWN_COLUMN', detail: `${field} ${JSON.stringify(column)} is not one of columnNames.` }];
  });
}

export function definitionErrors(definition: SourceDefinition): FieldError[] {
  return [
    ...blankOrTooLong('/assetSourceName', definition.assetSourceName, ASSET_SOURCE_NAME_MAX),
    ...columnNameErrors(definition.columnNames),
    ...specialColumnErrors(definition.columns, definition.columnNames),
    ...notOneOf('/contentType', definition.contentType ?? undefined, ASSET_SOURCE_CONTENT_TYPES),
  ];
}

/**
 * Every row is an object whose keys are among the columns, and whose rotation weight, when it has
 * one, is numeric. `pointerBase` is where the rows sit in the request (`/data`).
 */
export function rowErrors(rows: readonly unknown[], columnNames: readonly string[], rotationWeightColumn: string | null, pointerBase = '/data'): FieldError[] {
  if (rows.length > ASSET_SOURCE_ROWS_MAX)
    return [{ pointer: pointerBase, code: 'TOO_MANY_ITEMS', detail: `${pointerBase.slice(1)} may hold at most ${ASSET_SOURCE_ROWS_MAX} rows.` }];
  const known = new Set(columnNames);
  const errors: FieldError[] = [];
  for (let i = 0; i < rows.length && errors.length < MAX_ROW_ERRORS; i++) {
    const row = rows[i];
    const at = `${pointerBase}/${i}`;
    if (typeof row !== 'object' || row === null || Array.isArray(row)) {
      errors.push({ pointer: at, code: 'NOT_AN_OBJECT', detail: `Row ${i} must be an object keyed by column name.` });
      continue;
    }
    for (const key of Object.keys(row)) {
      if (!known.has(key))
        errors.push({
          pointer: `${at}/${pointerToken(key)}`,
          code: 'UNKNOWN_COLUMN',
          detail: `Row ${i} has ${JSON.stringify(key)}, which is not one of columnNames.`,
        });
    }
    const weight = rotationWeightColumn === null ? undefined : (row as SourceRow)[rotationWeightColumn];
    if (rotationWeightColumn !== null && weight !== undefined && weight !== null && !isNumericWeight(weight))
      errors.push({
        pointer: `${at}/${pointerToken(rotationWeightColumn)}`,
        code: 'NOT_NUMERIC',
        detail: `Row ${i} has the rotation weight ${JSON.stringify(weight)}; rotation weights must be numbers of at least 0.`,
      });
    if (JSON.stringify(row).length > ASSET_SOURCE_ROW_MAX_BYTES)
      errors.push({ pointer: at, code: 'TOO_LARGE', detail: `Row ${i} is larger than ${ASSET_SOURCE_ROW_MAX_BYTES} bytes serialized.` });
  }
  return errors.slice(0, MAX_ROW_ERRORS);
}
