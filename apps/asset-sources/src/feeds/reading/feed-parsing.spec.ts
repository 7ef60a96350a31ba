import { AppError } from '@platform/errors';
import type { FeedFormat, FeedRow, FeedRowBatch, RejectedFeedRow } from '../feed-reading';
import { emptyFeedConfig } from './feed-reader';
import { parseHere, parseInWorker, type FeedParsing } from './feed-parsing';

const CSV: FeedFormat = { contentType: 'csv', characterEncoding: 'UTF_8', csvSeparator: 'auto', firstRowIsHeader: true, cdp: false };
const XML: FeedFormat = { ...CSV, contentType: 'xml' };
const JSON_FEED: FeedFormat = { ...CSV, contentType: 'json' };

/** A feed's bytes in chunks of `size`, counting how many were read. */
function chunked(text: string | Buffer, size: number) {
  const bytes = Buffer.from(text);
  const source = {
    read: 0,
    async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
      for (let at = 0; at < bytes.length; at += size) {
        source.read++;
        yield bytes.subarray(at, at + size);
      }
    },
  };
  return source;
}

async function parseAll(parsing: FeedParsing, text: string | Buffer, format: FeedFormat, size = 1000) {
  const config = emptyFeedConfig(format);
  const parsed = parsing(chunked(text, size), format, config);
  const rows: (FeedRow | RejectedFeedRow)[] = [];
  let batches = 0;
  for await (const batch of parsed.batches) {
    rows.push(...batch);
    batches++;
  }
  return { rows, batches, config, contentHash: parsed.contentHash() };
}

function productsCsv(count: number): string {
  let text = 'sku,title,price\r\n';
  for (let i = 0; i < count; i++) text += i === 7 ? `broken,row\r\n` : `SKU-${i},"Shirt, size ${i % 5}\nwith a second line",${i}.99\r\n`;
  return text;
}

describe('parseInWorker', () => {
  it('answers the rows, lines, rejections, detected config and content hash that parsing in the calling thread does (CSV)', async () => {
    const text = productsCsv(3000);
    const here = await parseAll(parseHere, text, CSV);
    const there = await parseAll(parseInWorker, text, CSV);
    expect(here.rows).toHaveLength(3000);
    expect(here.rows[7]).toEqual({ line: 16, reason: expect.stringMatching(/2 fields/) });
    expect(here.rows[8]).toEqual({ line: 17, values: { sku: 'SKU-8', title: 'Shirt, size 3\nwith a second line', price: '8.99' } });
    expect(there.rows).toEqual(here.rows);
    expect(there.batches).toBeGreaterThan(1);
    expect(there.config).toEqual(here.config);
    expect(there.config.csvColumns).toEqual({ sku: 0, title: 1, price: 2 });
    expect(there.contentHash).toBe(here.contentHash);
  });

  it('does the same for XML rows with attributes and for JSON rows whose fields differ from row to row', async () => {
    const xml = `<?xml version="1.0"?><feed>${Array.from({ length: 500 }, (_, i) => `<item id="${i}"><title>T ${i}</title>${i % 3 === 0 ? '<sale>yes</sale>' : ''}</item>`).join('')}</feed>`;
    const json = JSON.stringify({
      products: Array.from({ length: 500 }, (_, i) => (i % 2 ? { sku: `S${i}`, dims: { w: i } } : { sku: `S${i}`, colour: 'red' })),
    });
    for (const [text, format] of [
      [xml, XML],
      [json, JSON_FEED],
    ] as const) {
      const here = await parseAll(parseHere, text, format, 700);
      const there = await parseAll(parseInWorker, text, format, 700);
      expect(here.rows).toHaveLength(500);
      expect(there.rows).toEqual(here.rows);
      expect(there.config).toEqual(here.config);
      expect(there.contentHash).toBe(here.contentHash);
    }
  });

  it('decodes the encoding the format names, in the thread', async () => {
    const latin1 = Buffer.from('name,city\nJosé,Zürich\n', 'latin1');
    const there = await parseAll(parseInWorker, latin1, { ...CSV, characterEncoding: 'iso_8859_1' }, 5);
    expect(there.rows).toEqual([{ line: 2, values: { name: 'José', city: 'Zürich' } }]);
  });

  it("fails with the parser's problem, its code and detail kept", async () => {
    const failure = await parseAll(parseInWorker, 'sku,title\nA,"never closed\n', CSV).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AppError);
    expect(failure).toMatchObject({ code: 'FEED_NOT_A_FEED', status: 424, detail: expect.stringMatching(/not readable as CSV/) });
  });

  it('ends the thread, not the service, when a value never ends: a problem saying so, the process heap untouched', async () => {
    const megabyte = Buffer.alloc(1024 * 1024, 'x');
    const body = {
      async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
        yield Buffer.from('<feed><item><title>');
        for (let i = 0; i < 300; i++) yield megabyte;
      },
    };
    const heapBefore = process.memoryUsage().heapUsed;
    const failure = await (async () => {
      for await (const batch of parseInWorker(body, XML, emptyFeedConfig(XML)).batches) expect(batch).toBeUndefined();
    })().catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'FEED_NOT_A_FEED', detail: expect.stringMatching(/more than the 64 MB its parser may hold/) });
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(32 * 1024 * 1024);
  });

  it("fails with the transport's own error when the bytes stop coming", async () => {
    const broken = new Error('the connection was reset');
    const body = {
      async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
        yield Buffer.from('sku\nA\nB\n');
        throw broken;
      },
    };
    const parsed = parseInWorker(body, CSV, emptyFeedConfig(CSV));
    const seen: FeedRowBatch[] = [];
    const failure = await (async () => {
      for await (const batch of parsed.batches) seen.push(batch);
    })().catch((error: unknown) => error);
    expect(failure).toBe(broken);
    // The rows of the bytes before the failure come out first.
    expect(seen.flat()).toEqual([
      { line: 2, values: { sku: 'A' } },
      { line: 3, values: { sku: 'B' } },
    ]);
    expect(() => parsed.contentHash()).toThrow(/once every row has been read/);
  });

  it('reads only a few chunks ahead of a consumer that waits, and none once it leaves', async () => {
    const body = chunked(productsCsv(20_000), 512);
    const parsed = parseInWorker(body, CSV, emptyFeedConfig(CSV));
    const iterator = parsed.batches[Symbol.asyncIterator]();
    try {
      await iterator.next();
      await new Promise((resolve) => setTimeout(resolve, 500));
      // The batch in hand, the four the thread may have ready, the chunk it parses and the four it asked for ahead.
      expect(body.read).toBeLessThanOrEqual(10);
    } finally {
      await iterator.return?.(undefined);
    }
    const readWhenLeft = body.read;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(body.read).toBe(readWhenLeft);
  });
});

describe('parsing a feed in UTF-16LE', () => {
  const encoded = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);

  it.each([
    ['CSV', CSV, (i: number) => `S${i},Shirt 😀 ${i}`, 'sku,name\n', '\n', ''],
    ['JSON', JSON_FEED, (i: number) => JSON.stringify({ sku: `S${i}`, name: `Shirt 😀 ${i}` }), '[', ',', ']'],
  ] as const)(
    'keeps the emoji of a %s feed whole where chunks of an odd length cut them, in the thread and here',
    async (_name, format, row, head, between, tail) => {
      const body = encoded(head + Array.from({ length: 600 }, (_, i) => row(i)).join(between) + tail);
      const expected = Array.from({ length: 600 }, (_, i) => ({ sku: `S${i}`, name: `Shirt 😀 ${i}` }));
      for (const parsing of [parseHere, parseInWorker]) {
        for (const size of [1001, 333]) {
          const { rows } = await parseAll(parsing, body, { ...format, characterEncoding: 'utf_16le' }, size);
          expect(rows.map((r) => ('values' in r ? r.values : r))).toEqual(expected);
        }
      }
    },
  );
});
