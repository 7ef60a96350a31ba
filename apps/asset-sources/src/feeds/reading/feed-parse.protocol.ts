import { AppError, fromWireProblem, toWireProblem, type WireProblem } from '@platform/errors';
import type { FeedConfig, FeedFormat, FeedRow, FeedRowBatch, RejectedFeedRow } from '../feed-reading';

/**
 * The messages between the ingestion and the thread that parses its feed (feed-parse.worker.ts).
 * The thread asks for the feed's bytes a chunk at a time (`chunksAhead` chunks ahead of its parser) and sends
 * rows back a batch per chunk, at most `ahead` batches before the ingestion acknowledges one: memory
 * stays bounded on both sides whatever the feed's size.
 */
export interface ParseJob {
  format: FeedFormat;
  config: FeedConfig;
  ahead: number;
  chunksAhead: number;
}

export type ToParser = { kind: 'chunk'; bytes: Uint8Array } | { kind: 'end' } | { kind: 'ack' };

export type FromParser =
  | { kind: 'pull' }
  | { kind: 'rows'; rows: EncodedBatch; config: FeedConfig; notUtf8: NotUtf8 }
  | { kind: 'done'; contentHash: string; config: FeedConfig; notUtf8: NotUtf8 }
  | { kind: 'failed'; failure: ParseFailure };

/** Where a feed read as UTF-8 first is not (Utf8Watch), as far as the thread has read; null while it is. */
export type NotUtf8 = { at: number; byte: number } | null;

/**
 * A batch of rows laid out flat, so that crossing threads copies a few arrays of strings and numbers
 * instead of an object per row: column names once (`names`), then per row its line, and in `layout`
 * its value count followed by the names' indexes (-1 for a rejected row, whose reason is its one value).
 */
export interface EncodedBatch {
  names: string[];
  lines: number[];
  layout: number[];
  values: string[];
}

export function encodeBatch(batch: FeedRowBatch): EncodedBatch {
  const names: string[] = [];
  const index = new Map<string, number>();
  const encoded: EncodedBatch = { names, lines: [], layout: [], values: [] };
  for (const row of batch) {
    encoded.lines.push(row.line);
    if ('reason' in row) {
      encoded.layout.push(-1);
      encoded.values.push(row.reason);
      continue;
    }
    const at = encoded.layout.push(0) - 1;
    let count = 0;
    for (const name in row.values) {
      let position = index.get(name);
      if (position === undefined) {
        position = names.push(name) - 1;
        index.set(name, position);
      }
      encoded.layout.push(position);
      encoded.values.push(row.values[name]);
      count++;
    }
    encoded.layout[at] = count;
  }
  return encoded;
}

export function decodeBatch({ names, lines, layout, values }: EncodedBatch): (FeedRow | RejectedFeedRow)[] {
  const rows: (FeedRow | RejectedFeedRow)[] = new Array(lines.length);
  let p = 0;
  let v = 0;
  for (let r = 0; r < lines.length; r++) {
    const count = layout[p++];
    if (count < 0) {
      rows[r] = { line: lines[r], reason: values[v++] };
      continue;
    }
    const row: Record<string, string> = {};
    for (let k = 0; k < count; k++) row[names[layout[p++]]] = values[v++];
    rows[r] = { line: lines[r], values: row };
  }
  return rows;
}

/** A parser's failure as it crosses threads: a problem whole; anything else its message. */
export type ParseFailure = { problem: WireProblem } | { message: string };

export function failureOf(error: unknown): ParseFailure {
  if (error instanceof AppError) return { problem: toWireProblem(error) };
  return { message: error instanceof Error ? error.message : String(error) };
}

export function errorOf(failure: ParseFailure): Error {
  return 'problem' in failure ? fromWireProblem(failure.problem) : new Error(failure.message);
}
