import { parse as parseCsv } from 'csv-parse/sync';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { AssetSourceContentType } from '@contracts/domain';
import type { SourceRow } from '../sources/asset-source.model';

/** Why a fetched body could not be read as rows; the message is shown to the customer. */
export class MalformedBodyError extends Error {}

type Json = unknown;

const isRecord = (value: Json): value is Record<string, Json> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The rows of a JSON answer: a top-level array of objects, or the first array of objects found in
 * a top-level object (APIs commonly wrap their list: `{"items": [...]}`).
 */
function jsonRows(text: string): Json[] {
  let value: Json;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new MalformedBodyError(`the body is not valid JSON (${(error as Error).message})`);
  }
  const rows = findRecordArray(value, 2);
  if (!rows) throw new MalformedBodyError('the JSON holds no array of objects');
  return rows;
}

/** Breadth-first, so the outermost list wins over lists nested inside its items. */
function findRecordArray(value: Json, depth: number): Json[] | undefined {
  if (Array.isArray(value)) return value.every(isRecord) ? value : undefined;
  if (!isRecord(value) || depth === 0) return undefined;
  for (const member of Object.values(value)) if (Array.isArray(member) && member.length > 0 && member.every(isRecord)) return member;
  for (const member of Object.values(value)) {
    const found = findRecordArray(member, depth - 1);
    if (found) return found;
  }
  return undefined;
}

function csvRows(text: string): Json[] {
  try {
    return parseCsv(text, { columns: true, skip_empty_lines: true, bom: true, trim: true }) as Json[];
  } catch (error) {
    throw new MalformedBodyError(`the body is not valid CSV (${(error as Error).message})`);
  }
}

/**
 * The rows of an XML answer: the repeated element nearest the root (`<products><product>...`),
 * each element's children and attributes its columns. A single record element is one row.
 */
function xmlRows(text: string): Json[] {
  const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', parseTagValue: false, trimValues: true, processEntities: true });
  const verdict = XMLValidator.validate(text);
  if (verdict !== true) throw new MalformedBodyError(`the body is not valid XML (${verdict.err.msg}, line ${verdict.err.line})`);
  const document: Json = parser.parse(text);
  const rows = findRepeated(document, 4) ?? findSingleRecord(document);
  if (!rows) throw new MalformedBodyError('the XML holds no repeated record element');
  return rows;
}

function findRepeated(value: Json, depth: number): Json[] | undefined {
  if (!isRecord(value) || depth === 0) return undefined;
  for (const member of Object.values(value)) if (Array.isArray(member) && member.some(isRecord)) return member.filter(isRecord);
  for (const member of Object.values(value)) {
    const found = findRepeated(member, depth - 1);
    if (found) return found;
  }
  return undefined;
}

/** `<root><item>...</item></root>` with one item: the innermost object whose members are all text. */
function findSingleRecord(value: Json): Json[] | undefined {
  if (!isRecord(value)) return undefined;
  const members = Object.values(value).filter((member) => !(typeof member === 'string' && member === ''));
  if (members.length > 0 && members.every((member) => !isRecord(member) && !Array.isArray(member))) return [value];
  for (const member of Object.values(value)) {
    const found = findSingleRecord(member);
    if (found) return found;
  }
  return undefined;
}

/** A cell as a row stores it: scalars as they are, anything nested as its JSON text. */
const cell = (value: Json): Json =>
  value === null || typeof value !== 'object' ? value : isRecord(value) && '#text' in value ? value['#text'] : JSON.stringify(value);

/**
 * Parses a fetched body into rows keyed by the source's columns: members that are not columns are
 * dropped, columns a record lacks are absent from its row.
 */
export function parseRemoteBody(body: Buffer, contentType: AssetSourceContentType, columnNames: readonly string[]): SourceRow[] {
  const text = body.toString('utf8');
  const records = contentType === 'csv' ? csvRows(text) : contentType === 'json' ? jsonRows(text) : xmlRows(text);
  return records.map((record) => {
    const row: SourceRow = {};
    for (const column of columnNames) {
      const value = (record as Record<string, Json>)[column];
      if (value !== undefined) row[column] = cell(value);
    }
    return row;
  });
}
