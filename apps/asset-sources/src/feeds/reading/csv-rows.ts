import { parse, type CsvError, type Options } from 'csv-parse';
import type { FeedCsvSeparator, FeedRow, FeedRowBatch, RejectedFeedRow } from '../feed-reading';
import { feedNotAFeed } from './feed-errors';
import { peekText } from './text-head';
import { counted } from '../counted';

const SEPARATOR_CHARS: Record<Exclude<FeedCsvSeparator, 'auto'>, string> = { comma: ',', tab: '\t', pipe: '|' };
/** Candidates of auto-detection: the three named ones and the semicolon of European spreadsheet exports. */
const DETECTABLE = [',', '\t', '|', ';'];
/**
 * Characters a record may reach before the feed counts as broken: far past any row that could be
 * stored (ASSET_SOURCE_ROW_MAX_BYTES), and a quote that never closes stops here instead of taking the
 * rest of the feed into memory.
 */
const MAX_RECORD_CHARS = 1024 * 1024;

/**
 * The separator that splits the first line (quotes respected) into the most fields; a comma when
 * none does. The first line is the header or a first row, where every field is present.
 */
export function detectSeparator(head: string): string {
  const counts = new Map(DETECTABLE.map((c) => [c, 0]));
  let quoted = false;
  for (const char of head) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === '\n' || char === '\r')) break;
    else if (!quoted && counts.has(char)) counts.set(char, (counts.get(char) ?? 0) + 1);
  }
  let best = ',';
  for (const [char, count] of counts) if (count > (counts.get(best) ?? 0)) best = char;
  return best;
}

/**
 * Why a body that is not CSV at all cannot be read as one. Any text splits into fields, so XML or JSON
 * would come out as one odd column; NUL characters mean binary bytes, or UTF-16 read as UTF-8.
 */
export function notCsvReason(head: string): string | undefined {
  const start = head
    .replace(/^\uFEFF/, '')
    .trimStart()
    .slice(0, 256);
  if (/^<(?:\?xml|rss[\s>]|feed[\s>])/i.test(start)) return 'The feed is XML, not CSV: set contentType xml.';
  if (/^(?:\{\s*"|\[\s*[{["\]])/.test(start)) return 'The feed is JSON, not CSV: set contentType json.';
  if (head.includes('\u0000'))
    return 'The feed holds NUL characters, so it is not CSV text: binary bytes, or UTF-16 without a byte-order mark (set characterEncoding utf_16le).';
  return undefined;
}

/** A first line ends outside quotes; detection needs the whole of it. */
function hasFirstLine(head: string): boolean {
  let quoted = false;
  for (const char of head) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === '\n' || char === '\r')) return true;
  }
  return false;
}

/** Names of the columns of a feed without a header: column1, column2, ... */
export const positionalColumnName = (index: number) => `column${index + 1}`;

export interface CsvReadOptions {
  separator: FeedCsvSeparator;
  firstRowIsHeader: boolean;
  /** Column name -> field index from process: with a header row each is found by its name there, without one by its index. Absent, the header (or the positions) name the columns. */
  columns?: Record<string, number>;
}

export interface CsvShape {
  separator: string;
  /** Column name -> field index. */
  columns: Record<string, number>;
}

/** csv-parse's synchronous core, which its stream wraps (the parser's `api`): records come back inside the call, with no stream step or promise per record. */
interface CsvParseCore {
  parse(chunk: Buffer | undefined, end: boolean, push: (record: { record: string[]; raw: string }) => void, close: () => void): CsvError | undefined;
}

function csvParseCore(options: Options): CsvParseCore {
  const core = (parse(options) as unknown as { api?: CsvParseCore }).api;
  if (typeof core?.parse !== 'function') throw new Error('csv-parse no longer exposes its parser core (Parser.api.parse).');
  return core;
}

/**
 * Streams the rows of a CSV feed's UTF-8 bytes, a batch per chunk read. Quoted fields may hold separators,
 * quotes ("") and line breaks. A record whose field count differs from the header's is rejected with
 * its line and the feed goes on; an unterminated quote breaks the feed.
 */
export async function* csvRows(source: AsyncIterable<Buffer>, options: CsvReadOptions, onShape?: (shape: CsvShape) => void): AsyncGenerator<FeedRowBatch> {
  const { head, text } = await peekText(source, hasFirstLine, 1024 * 1024);
  const notCsv = notCsvReason(head);
  if (notCsv) throw feedNotAFeed(notCsv);
  const separator = options.separator === 'auto' ? detectSeparator(head) : SEPARATOR_CHARS[options.separator];
  const core = csvParseCore({
    delimiter: separator,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    raw: true,
    bom: true,
    max_record_size: MAX_RECORD_CHARS,
  });

  let columns: Array<[string, number]> | undefined = options.columns ? Object.entries(options.columns) : undefined;
  let width = columns ? Math.max(0, ...columns.map(([, i]) => i)) + 1 : undefined;
  // Without a header, columns from process may name a subset of the positions and nothing says how wide
  // a row is: only a row too short for them is broken. A header says it, whoever names the columns.
  const onlyTooShort = options.columns !== undefined && !options.firstRowIsHeader;
  let headerPending = options.firstRowIsHeader;
  let nextLine = 1;
  let batch: (FeedRow | RejectedFeedRow)[] = [];
  const take = ({ record, raw }: { record: string[]; raw: string }) => {
    const line = nextLine + leadingLineBreaks(raw);
    nextLine += lineBreaks(raw);
    if (headerPending) {
      headerPending = false;
      const header = uniqueNames(record.map((name) => name.trim()));
      // Columns are found by their header name, also when process named their positions: an export whose
      // columns moved (one added in the middle, the order changed) still fills each column from its own
      // field. A column the header no longer has is left out of every row (the run names it).
      columns = columns
        ? columns.flatMap(([name]): [string, number][] => {
            const index = header.indexOf(name);
            return index < 0 ? [] : [[name, index]];
          })
        : header.map((name, index) => [name, index]);
      // A row of another width than the header's has a field too many or too few (a separator unquoted
      // in a value): found by name, its fields would shift into the wrong columns.
      width = record.length;
      onShape?.({ separator, columns: Object.fromEntries(columns) });
      return;
    }
    if (!columns) {
      columns = record.map((_, index) => [positionalColumnName(index), index]);
      width = record.length;
      onShape?.({ separator, columns: Object.fromEntries(columns) });
    }
    const broken = onlyTooShort ? record.length < (width ?? 0) : record.length !== width;
    if (broken) {
      batch.push({
        line,
        reason: `The row has ${counted(record.length, 'field')} where the ${options.firstRowIsHeader ? 'header has' : 'first row has'} ${width}.`,
      });
      return;
    }
    const values: Record<string, string> = {};
    for (const [name, index] of columns) values[name] = record[index] ?? '';
    batch.push({ line, values });
  };
  const parseChunk = (chunk: Buffer | undefined) => {
    const error = core.parse(chunk, chunk === undefined, take, () => undefined);
    if (error) throw feedNotAFeed(`The feed is not readable as CSV after line ${nextLine - 1}: ${error.message}`);
    const parsed = batch;
    batch = [];
    return parsed;
  };
  for await (const chunk of text) {
    const parsed = parseChunk(chunk);
    if (parsed.length > 0) yield parsed;
  }
  const last = parseChunk(undefined);
  if (last.length > 0) yield last;
  if (headerPending) throw feedNotAFeed('The feed is empty: it has no header row.');
}

/**
 * Line breaks in a record's raw text. Lines are counted in the raw text: csv-parse's own count takes
 * a quoted CRLF for two. The usual record ends in its only line break, found without a scan.
 */
function lineBreaks(raw: string): number {
  const last = raw.length - 1;
  if (raw.charCodeAt(last) === 10 && raw.indexOf('\n') === last && raw.indexOf('\r') === -1) return 1;
  return countLineBreaks(raw);
}

/** Empty lines skipped before a record come at the start of its raw text. */
function leadingLineBreaks(raw: string): number {
  const first = raw.charCodeAt(0);
  if (first !== 10 && first !== 13) return 0;
  return countLineBreaks(/^(?:\r\n|\r|\n)*/.exec(raw)?.[0] ?? '');
}

const countLineBreaks = (text: string) => text.match(/\r\n|\r|\n/g)?.length ?? 0;

/**
 * A repeated or empty header name would lose a column: the second "price" becomes "price_2", an empty one
 * its position ("column3"), each with the next suffix no other column has ("price_3" when the header also
 * names a "price_2"). The header's own names are kept as they are.
 */
function uniqueNames(names: string[]): string[] {
  const taken = new Set(names);
  const kept = new Set<string>();
  return names.map((raw, index) => {
    if (raw !== '' && !kept.has(raw)) {
      kept.add(raw);
      return raw;
    }
    const base = raw === '' ? positionalColumnName(index) : raw;
    let name = base;
    for (let suffix = 2; taken.has(name); suffix++) name = `${base}_${suffix}`;
    taken.add(name);
    return name;
  });
}
