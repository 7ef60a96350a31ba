import { execFileSync } from 'node:child_process';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { FeedFormat as ReaderFormat } from '../apps/asset-sources/src/feeds/feed-reading';
import { emptyFeedConfig } from '../apps/asset-sources/src/feeds/reading/feed-reader';
import { formatRows } from '../apps/asset-sources/src/feeds/reading/feed-format';
import { ByteTally } from '../apps/asset-sources/src/feeds/reading/feed-text';
import { csvRowCounter, saxesRowCounter } from './harness/bare-parsers';
import { feedHead, feedRow, feedTail, type FeedFormat } from './harness/product-feed';

/**
 * The feed readers' CPU per row beside their bare parsers', in one process over the same bytes held in
 * memory (no network, no database): what the ingestion's parser thread spends on a row (decoding,
 * hashing, parsing, assembling the row) against csv-parse with columns from the header and saxes with
 * the reader's options counting rows, as the feed-ingest benchmark's baselines run them. The product
 * feed of feed-ingest, BENCH_FEED_READER_ROWS rows (default 200,000), CSV and XML (BENCH_FEED_FORMATS);
 * each run in a process of its own, the two in turns, ROUNDS times, and the median of each is reported.
 */
const ROWS = Number(process.env.BENCH_FEED_READER_ROWS ?? 200_000);
const FORMATS = (process.env.BENCH_FEED_FORMATS ?? 'csv,xml').split(',').map((f) => f.trim()) as FeedFormat[];
const ROUNDS = 5;
const CHUNK_BYTES = 64 * 1024;

function feedBytes(format: FeedFormat): Buffer[] {
  const parts = [feedHead(format)];
  for (let i = 0; i < ROWS; i++) parts.push(`${feedRow(format, i)}\n`);
  parts.push(feedTail(format));
  const bytes = Buffer.from(parts.join(''));
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += CHUNK_BYTES) chunks.push(bytes.subarray(at, at + CHUNK_BYTES));
  return chunks;
}

async function* chunksOf(chunks: Buffer[]): AsyncGenerator<Buffer> {
  yield* chunks;
}

/** The reader as the parser thread runs it. */
async function readerRows(format: FeedFormat, chunks: Buffer[]): Promise<number> {
  const readerFormat: ReaderFormat = { contentType: format, characterEncoding: 'UTF_8', csvSeparator: 'comma', firstRowIsHeader: true, cdp: false };
  let rows = 0;
  for await (const batch of formatRows(chunksOf(chunks), new ByteTally(), readerFormat, emptyFeedConfig(readerFormat))) rows += batch.length;
  return rows;
}

/**
 * The bare parser, as bench/harness/bare-<format>-parse.ts runs it over HTTP. `withText`: saxes also
 * hands its text out (to a listener that drops it); without a text listener it never slices the text
 * of an element, where csv-parse always makes every field a string.
 */
async function bareRows(format: FeedFormat, chunks: Buffer[], withText = false): Promise<number> {
  if (format === 'csv') {
    const { parser, rows } = csvRowCounter();
    await finished(Readable.from(chunks).pipe(parser));
    return rows();
  }
  const { parser, rows } = saxesRowCounter();
  if (withText) {
    parser.on('text', () => undefined);
    parser.on('cdata', () => undefined);
  }
  const decoder = new TextDecoder('utf-8');
  for (const chunk of chunks) parser.write(decoder.decode(chunk, { stream: true }));
  parser.close();
  return rows();
}

/** CPU µs per row of one run. */
async function cpuPerRow(run: () => Promise<number>): Promise<number> {
  const begin = process.cpuUsage();
  const rows = await run();
  const used = process.cpuUsage(begin);
  if (rows !== ROWS) throw new Error(`counted ${rows} rows, not ${ROWS}`);
  return (used.user + used.system) / rows;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

type Kind = 'bare' | 'reader' | 'bare with text';
const KINDS: Record<FeedFormat, Kind[]> = { csv: ['bare', 'reader'], xml: ['bare', 'reader', 'bare with text'] };

/** One measurement, in a process of its own (BENCH_FEED_READER_RUN=format:kind): its CPU µs per row, printed as JSON. */
async function measureOne(format: FeedFormat, kind: Kind): Promise<void> {
  const chunks = feedBytes(format);
  const run = kind === 'reader' ? () => readerRows(format, chunks) : () => bareRows(format, chunks, kind === 'bare with text');
  process.stdout.write(JSON.stringify(await cpuPerRow(run)));
}

/**
 * Every measurement runs in a fresh process: the ingestion's parser thread is a fresh thread per run,
 * and saxes' code, optimized for one parser's hidden class, is deoptimized again and again when
 * parsers of different shapes take turns in one process (the reader ran at half its speed then).
 */
function measureApart(format: FeedFormat, kind: Kind): number {
  const out = execFileSync(process.execPath, ['--import', 'tsx', __filename], {
    env: { ...process.env, BENCH_FEED_READER_RUN: `${format}:${kind}` },
    encoding: 'utf8',
  });
  return JSON.parse(out) as number;
}

async function main(): Promise<void> {
  const one = process.env.BENCH_FEED_READER_RUN;
  if (one) {
    const [format, kind] = one.split(':') as [FeedFormat, Kind];
    return measureOne(format, kind);
  }
  const summary: Record<string, Record<string, string>> = {};
  for (const format of FORMATS) {
    const runs: Record<Kind, number[]> = { bare: [], reader: [], 'bare with text': [] };
    for (let round = 0; round < ROUNDS; round++) for (const kind of KINDS[format]) runs[kind].push(measureApart(format, kind));
    const bare = median(runs.bare);
    const reader = median(runs.reader);
    summary[format] = {
      'bare parser µs/row (baseline)': bare.toFixed(2),
      'reader µs/row (subject)': reader.toFixed(2),
      'ratio reader/bare': (reader / bare).toFixed(2),
      'reader beyond bare µs/row': (reader - bare).toFixed(2),
      'bare parser handing out text µs/row': format === 'xml' ? median(runs['bare with text']).toFixed(2) : '(always)',
      rounds: runs.reader.map((r, i) => `${(runs.bare[i] as number).toFixed(1)}/${r.toFixed(1)}`).join(' '),
    };
  }
  console.log(`${ROWS} rows, ${ROUNDS} rounds, each run in a process of its own (bare/reader CPU µs per row each round; medians in the columns)`);
  console.table(summary);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
