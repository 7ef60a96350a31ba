/** Text read ahead from the start of a feed, and the whole feed again (the head replayed, then the rest). */
export interface PeekedText {
  head: string;
  text: AsyncIterable<string>;
}

/**
 * Reads chunks until `enough(head)` or `maxChars`, without losing them: detection (a separator, the
 * shape of a JSON or XML feed) looks at the head, parsing then reads everything from the start.
 */
export async function peekText(source: AsyncIterable<string>, enough: (head: string) => boolean, maxChars: number): Promise<PeekedText> {
  const iterator = source[Symbol.asyncIterator]();
  const chunks: string[] = [];
  let head = '';
  let done = false;
  while (head.length < maxChars && !enough(head)) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    chunks.push(next.value);
    head += next.value;
  }
  async function* replay(): AsyncGenerator<string> {
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
