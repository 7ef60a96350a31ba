import { createHash, type Hash } from 'node:crypto';
import type { Readable } from 'node:stream';
import iconv from 'iconv-lite';
import type { FeedCharacterEncoding } from '../feed-reading';
import { peekBytes } from './text-head';
import { Utf8Watch } from './utf8-watch';

/**
 * iconv-lite's names for the interface's encodings. iso_8859_1 is read as windows-1252, as browsers read
 * a page labelled ISO-8859-1 (the WHATWG Encoding Standard): the two differ only in bytes 0x80-0x9F, which
 * are control characters in ISO-8859-1 and never text, and which files labelled so mostly hold as
 * windows-1252's € ‘ ’ “ ” – —.
 */
const ICONV_NAMES: Record<FeedCharacterEncoding, string> = {
  UTF_8: 'utf8',
  iso_8859_1: 'win1252',
  CP1252: 'win1252',
  utf_16le: 'utf16le',
};

/** The longest byte-order mark (UTF-8's). */
const BOM_MAX_BYTES = 3;

/** A byte-order mark says what the bytes are whatever the feed's settings claim: exporters know their own encoding best. */
function encodingOfBom(head: Buffer): { name: string; length: number } | undefined {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { name: 'utf8', length: 3 };
  if (head[0] === 0xff && head[1] === 0xfe) return { name: 'utf16le', length: 2 };
  if (head[0] === 0xfe && head[1] === 0xff) return { name: 'utf16be', length: 2 };
  return undefined;
}

/**
 * Counts and hashes the raw bytes as they pass, for the content hash an unchanged feed is recognised by,
 * and, when the feed is read as UTF-8, notes where its bytes first are not (`utf8`).
 */
export class ByteTally {
  private readonly hash: Hash = createHash('sha256');
  private digest?: string;
  bytes = 0;
  readonly utf8 = new Utf8Watch();

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
  const { bom, bytes } = await withoutBom(body, tally);
  const name = bom?.name ?? ICONV_NAMES[encoding];
  yield* decoded(name === 'utf8' ? watchedUtf8(bytes, bom?.length ?? 0, tally) : bytes, name);
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
  const { bom, bytes } = await withoutBom(body, tally);
  const name = bom?.name ?? ICONV_NAMES[encoding];
  if (name === 'utf8') yield* watchedUtf8(bytes, bom?.length ?? 0, tally);
  else for await (const text of decoded(bytes, name)) yield Buffer.from(text);
}

/** Bytes read as UTF-8 (after a BOM of `bomLength`), passed on as they are, each chunk looked at by the tally's Utf8Watch. */
async function* watchedUtf8(bytes: AsyncIterable<Buffer>, bomLength: number, tally?: ByteTally): AsyncGenerator<Buffer> {
  if (!tally) return yield* bytes;
  tally.utf8.skipped(bomLength);
  for await (const chunk of bytes) {
    tally.utf8.see(chunk);
    yield chunk;
  }
  tally.utf8.end();
}

/**
 * The feed's bytes (each added to `tally` as it is read) with its byte-order mark, if any, looked at
 * and dropped: three bytes decide it (a shorter feed is decided at its end), read once by peekBytes.
 */
async function withoutBom(
  body: AsyncIterable<Buffer | string>,
  tally?: ByteTally,
): Promise<{ bom: ReturnType<typeof encodingOfBom>; bytes: AsyncIterable<Buffer> }> {
  async function* tallied(): AsyncGenerator<Buffer> {
    for await (const raw of body) {
      const chunk = typeof raw === 'string' ? Buffer.from(raw) : raw;
      tally?.add(chunk);
      yield chunk;
    }
  }
  const { head, bytes: all } = await peekBytes(tallied(), BOM_MAX_BYTES);
  const bom = encodingOfBom(head);
  async function* bytes(): AsyncGenerator<Buffer> {
    let skip = bom?.length ?? 0;
    for await (const chunk of all) {
      // The BOM's bytes are in the head's first chunks.
      const rest = skip > 0 ? chunk.subarray(Math.min(skip, chunk.length)) : chunk;
      skip -= chunk.length - rest.length;
      if (rest.length > 0) yield rest;
    }
  }
  return { bom, bytes: bytes() };
}

/**
 * Bytes as text in an iconv encoding; a character split across chunks is carried over by the decoder. A
 * UTF-16 chunk of an odd length cut inside a surrogate pair (a character past U+FFFF, an emoji) makes the
 * decoder hand out the pair's high half alone: it is held back and goes out with its low half, so no chunk
 * of text ends in half a character (made U+FFFD where the text is encoded as UTF-8 a chunk at a time).
 */
async function* decoded(bytes: AsyncIterable<Buffer>, iconvName: string): AsyncGenerator<string> {
  const decoder = iconv.getDecoder(iconvName, { stripBOM: false });
  let highHalf = '';
  for await (const chunk of bytes) {
    let text = decoder.write(chunk);
    if (highHalf) {
      text = highHalf + text;
      highHalf = '';
    }
    if (isHighSurrogate(text.charCodeAt(text.length - 1))) {
      highHalf = text.slice(-1);
      text = text.slice(0, -1);
    }
    if (text) yield text;
  }
  // A single-byte codec's end() answers nothing at all.
  const rest = highHalf + (decoder.end() ?? '');
  if (rest) yield rest;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
