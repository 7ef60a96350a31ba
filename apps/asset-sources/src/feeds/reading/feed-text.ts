import { createHash, type Hash } from 'node:crypto';
import type { Readable } from 'node:stream';
import iconv from 'iconv-lite';
import type { FeedCharacterEncoding } from '../feed-reading';

/** iconv-lite's names for the interface's encodings. */
const ICONV_NAMES: Record<FeedCharacterEncoding, string> = {
  UTF_8: 'utf8',
  iso_8859_1: 'latin1',
  CP1252: 'win1252',
  utf_16le: 'utf16le',
};

/** A byte-order mark says what the bytes are whatever the feed's settings claim: exporters know their own encoding best. */
function encodingOfBom(head: Buffer): { name: string; length: number } | undefined {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { name: 'utf8', length: 3 };
  if (head[0] === 0xff && head[1] === 0xfe) return { name: 'utf16le', length: 2 };
  if (head[0] === 0xfe && head[1] === 0xff) return { name: 'utf16be', length: 2 };
  return undefined;
}

/** Counts and hashes the raw bytes as they pass, for the content hash an unchanged feed is recognised by. */
export class ByteTally {
  private readonly hash: Hash = createHash('sha256');
  private digest?: string;
  bytes = 0;

  add(chunk: Buffer): void {
    this.bytes += chunk.length;
    this.hash.update(chunk);
  }

  /** sha256 hex of every byte added; final once called. */
  hex(): string {
    this.digest ??= this.hash.digest('hex');
    return this.digest;
  }
}

/**
 * The feed's bytes as text, chunk by chunk, in the encoding its settings name (or its BOM's), the
 * BOM itself dropped. A character split across chunks is carried over by the decoder.
 */
export async function* decodeFeedText(body: AsyncIterable<Buffer | string>, encoding: FeedCharacterEncoding, tally?: ByteTally): AsyncGenerator<string> {
  let decoder: ReturnType<typeof iconv.getDecoder> | undefined;
  let pending = Buffer.alloc(0);
  for await (const raw of body) {
    const chunk = typeof raw === 'string' ? Buffer.from(raw) : raw;
    tally?.add(chunk);
    if (!decoder) {
      pending = Buffer.concat([pending, chunk]);
      // Three bytes decide the BOM; a shorter feed is decided at its end.
      if (pending.length < 3) continue;
      const bom = encodingOfBom(pending);
      decoder = iconv.getDecoder(bom?.name ?? ICONV_NAMES[encoding], { stripBOM: false });
      const text = decoder.write(pending.subarray(bom?.length ?? 0));
      if (text) yield text;
      continue;
    }
    const text = decoder.write(chunk);
    if (text) yield text;
  }
  if (!decoder) {
    const bom = encodingOfBom(pending);
    decoder = iconv.getDecoder(bom?.name ?? ICONV_NAMES[encoding], { stripBOM: false });
    const text = decoder.write(pending.subarray(bom?.length ?? 0));
    if (text) yield text;
  }
  const rest = decoder.end();
  if (rest) yield rest;
}

/** Closes a transport's stream when a reader stops early (a head read, an abort). */
export function destroyQuietly(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}

/**
 * The feed's bytes as UTF-8, chunk by chunk, the BOM dropped, for a parser that reads bytes (csv-parse):
 * a UTF-8 feed's bytes pass as they came, with no decoding into text and encoding back (a tenth of a
 * CSV feed's ingestion); a feed in another encoding (by its settings or its BOM) is decoded as
 * `decodeFeedText` does, then encoded as UTF-8.
 */
export async function* utf8FeedBytes(body: AsyncIterable<Buffer | string>, encoding: FeedCharacterEncoding, tally?: ByteTally): AsyncGenerator<Buffer> {
  const iterator = body[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let headBytes = 0;
  let ended = false;
  const next = async (): Promise<Buffer | undefined> => {
    const read = await iterator.next();
    if (read.done) return undefined;
    const chunk = typeof read.value === 'string' ? Buffer.from(read.value) : read.value;
    tally?.add(chunk);
    return chunk;
  };
  // Three bytes decide the BOM; a shorter feed is decided at its end.
  while (headBytes < 3) {
    const chunk = await next();
    if (!chunk) {
      ended = true;
      break;
    }
    head.push(chunk);
    headBytes += chunk.length;
  }
  const first = Buffer.concat(head);
  async function* all(): AsyncGenerator<Buffer> {
    yield first;
    if (ended) return;
    for (let chunk = await next(); chunk; chunk = await next()) yield chunk;
  }
  const bom = encodingOfBom(first);
  if ((bom?.name ?? ICONV_NAMES[encoding]) !== 'utf8') {
    for await (const text of decodeFeedText(all(), encoding)) yield Buffer.from(text);
    return;
  }
  for await (const chunk of all()) {
    if (chunk === first) {
      const rest = first.subarray(bom?.length ?? 0);
      if (rest.length > 0) yield rest;
    } else yield chunk;
  }
}
