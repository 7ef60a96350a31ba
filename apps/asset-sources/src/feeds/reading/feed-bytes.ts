import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { feedDecompressedTooLarge, feedNotAFeed } from './feed-errors';
import { unzipped } from './feed-zip';
import { peekBytes } from './text-head';

/** Bytes read ahead to tell what a body is: the magic numbers, and an HTML page's start after blank space. */
const SNIFF_BYTES = 1024;

const startsWith = (head: Buffer, magic: number[]) => magic.every((byte, i) => head[i] === byte);
const GZIP_MAGIC = [0x1f, 0x8b];
const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];

/** An HTML page where a feed was expected: a login, error or "moved" page answered with 200. */
const HTML_START = /^(?:\s|<!--.*?-->)*<(?:!doctype\s+html|html[\s>]|head[\s>]|body[\s>])/is;

/**
 * A feed's bytes made ready for its parser: a gzip file (a `.gz` export) or a zip archive of one file
 * (a `.zip` export), each known by its first bytes whatever its name or Content-Type says, is
 * decompressed as it streams, held to the same cap as any feed (a small file must not inflate without
 * bound); an HTML page is refused as not a feed, with what to do instead. Everything else passes as it came.
 */
export async function* feedBytes(body: AsyncIterable<Buffer>, limits: { maxBytes: number; where: string }): AsyncGenerator<Buffer> {
  const raw = await peekBytes(body, GZIP_MAGIC.length + ZIP_MAGIC.length);
  const bytes = startsWith(raw.head, ZIP_MAGIC) ? unzipped(raw.bytes, limits) : startsWith(raw.head, GZIP_MAGIC) ? gunzipped(raw.bytes, limits) : raw.bytes;
  const sniffed = await peekBytes(bytes, SNIFF_BYTES);
  const start = sniffed.head.toString('latin1').replace(/^\u00ef\u00bb\u00bf/, '');
  if (HTML_START.test(start))
    throw feedNotAFeed(`The feed at ${limits.where} is an HTML page, not a feed (a login or error page?): check its url and credentials.`);
  yield* sniffed.bytes;
}

async function* gunzipped(compressed: AsyncIterable<Buffer>, { maxBytes, where }: { maxBytes: number; where: string }): AsyncGenerator<Buffer> {
  const gunzip = createGunzip();
  const input = Readable.from(compressed);
  // A transport's failure (too large, cut off) reaches the reader as itself, not as a gzip error.
  let inputError: unknown;
  input.once('error', (error) => {
    inputError = error;
    gunzip.destroy();
  });
  input.pipe(gunzip);
  let total = 0;
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > maxBytes) throw feedDecompressedTooLarge(where, maxBytes);
      yield chunk;
    }
  } catch (error) {
    if (inputError) throw inputError;
    if ((error as { code?: string }).code?.startsWith('Z_'))
      throw feedNotAFeed(`The feed at ${where} is gzip but does not decompress: ${(error as Error).message}.`);
    throw error;
  } finally {
    input.destroy();
    gunzip.destroy();
  }
  if (inputError) throw inputError;
}
