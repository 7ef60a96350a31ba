import { parse, type Parser } from 'csv-parse';
import { SaxesParser } from 'saxes';

/**
 * The feed benchmarks' bare parsers, set up once for both (feed-ingest's baseline processes and
 * feed-readers): the parsers the feed reader is built on, with its options, counting rows.
 */

/** csv-parse with columns from the header, as the feed reader asks it, counting the records it reads out. */
export function csvRowCounter(): { parser: Parser; rows: () => number } {
  let rows = 0;
  const parser = parse({ columns: true, relax_column_count: true });
  parser.on('readable', () => {
    while (parser.read() !== null) rows++;
  });
  return { parser, rows: () => rows };
}

/** saxes with the feed reader's options, counting the row elements (the children of the root) as they close. */
export function saxesRowCounter(): { parser: SaxesParser; rows: () => number } {
  let rows = 0;
  let depth = 0;
  const parser = new SaxesParser({ position: true, xmlns: false });
  parser.on('opentag', () => void depth++);
  parser.on('closetag', () => {
    depth--;
    if (depth === 1) rows++;
  });
  return { parser, rows: () => rows };
}
