/** Text read ahead from the start of a feed, and the whole feed again (the head replayed, then the rest). */
export interface PeekedText<Chunk extends string | Buffer = string> {
  head: string;
  text: AsyncIterable<Chunk>;
}

/**
 * Reads chunks while `wantMore(read so far)`, without losing them: `head` is what was read, `all` every
 * chunk again from the start (the head replayed, then the rest). What detection looks at (a
 * separator, the shape of a JSON or XML feed, a gzip header) is read once; parsing reads everything.
 */
export async function peekChunks<Chunk>(
  source: AsyncIterable<Chunk>,
  wantMore: (read: readonly Chunk[]) => boolean,
): Promise<{ head: Chunk[]; all: AsyncIterable<Chunk> }> {
  const iterator = source[Symbol.asyncIterator]();
  const chunks: Chunk[] = [];
  let done = false;
  while (wantMore(chunks)) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    chunks.push(next.value);
  }
  async function* replay(): AsyncGenerator<Chunk> {
    yield* chunks.splice(0);
    if (done) return;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  return { head: [...chunks], all: replay() };
}

/** The first `want` bytes (fewer when the source is shorter), and every byte again from the start; see peekChunks. */
export async function peekBytes(source: AsyncIterable<Buffer>, want: number): Promise<{ head: Buffer; bytes: AsyncIterable<Buffer> }> {
  const { head, all } = await peekChunks(source, (read) => read.reduce((length, chunk) => length + chunk.length, 0) < want);
  return { head: Buffer.concat(head).subarray(0, want), bytes: all };
}

/** Reads chunks until `enough(head)` or `maxChars`, the head as text; see peekChunks. */
export async function peekText<Chunk extends string | Buffer>(
  source: AsyncIterable<Chunk>,
  enough: (head: string) => boolean,
  maxChars: number,
): Promise<PeekedText<Chunk>> {
  let head = '';
  let decoded = 0;
  const { all } = await peekChunks(source, (read) => {
    // Bytes are UTF-8: a character cut at a chunk's end only blurs the head's last character.
    for (; decoded < read.length; decoded++) {
      const chunk = read[decoded] as Chunk;
      head += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    }
    return head.length < maxChars && !enough(head);
  });
  return { head, text: all };
}
