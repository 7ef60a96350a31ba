/** Text read ahead from the start of a feed, and the whole feed again (the head replayed, then the rest). */
export interface PeekedText<Chunk extends string | Buffer = string> {
  head: string;
  text: AsyncIterable<Chunk>;
}

/**
 * Reads chunks until `enough(head)` or `maxChars`, without losing them: detection (a separator, the
 * shape of a JSON or XML feed) looks at the head, parsing then reads everything from the start.
 */
export async function peekText<Chunk extends string | Buffer>(
  source: AsyncIterable<Chunk>,
  enough: (head: string) => boolean,
  maxChars: number,
): Promise<PeekedText<Chunk>> {
  const iterator = source[Symbol.asyncIterator]();
  const chunks: Chunk[] = [];
  let head = '';
  let done = false;
  while (head.length < maxChars && !enough(head)) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    chunks.push(next.value);
    // Bytes are UTF-8: a character cut at a chunk's end only blurs the head's last character.
    head += typeof next.value === 'string' ? next.value : next.value.toString('utf8');
  }
  async function* replay(): AsyncGenerator<Chunk> {
    yield* chunks;
    chunks.length = 0;
    if (done) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  }
  return { head, text: replay() };
}
