import { AppError } from '@platform/errors';
import iconv from 'iconv-lite';
import type { FeedFormat } from '../feed-reading';
import { httpFeedReader, httpLocation, readAll, startFeedHttpServer, type FeedHttpServer } from './feed-test-servers';

const JSON_FORMAT: FeedFormat = { contentType: 'json', characterEncoding: 'UTF_8', csvSeparator: 'auto', firstRowIsHeader: false, cdp: false };

describe('JSON feeds (a real HTTP server on loopback)', () => {
  const feeds = new Map<string, string | Buffer>();
  let server: FeedHttpServer;

  beforeAll(async () => {
    server = await startFeedHttpServer((req, res) => {
      const body = feeds.get(req.url ?? '');
      if (body === undefined) res.writeHead(404).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
  });
  afterAll(() => server?.close());

  const read = async (path: string, body: string | Buffer, format: Partial<FeedFormat> = {}) => {
    feeds.set(path, body);
    const feed = await httpFeedReader([server.hostPort]).open(httpLocation(`${server.origin}${path}`), { ...JSON_FORMAT, ...format });
    return { ...(await readAll(feed)), config: feed.config() };
  };

  it('reads a root array of objects, nested members flattened to dotted names', async () => {
    const { all, config } = await read(
      '/root.json',
      JSON.stringify([
        { sku: 'A1', price: { amount: 10.5, currency: 'EUR' }, tags: ['new', 'sale'], stock: null, active: true },
        { sku: 'A2', price: { amount: 3, currency: 'EUR' }, tags: [], active: false },
      ]),
    );
    expect(all).toEqual([
      { line: 1, values: { sku: 'A1', 'price.amount': '10.5', 'price.currency': 'EUR', 'tags.0': 'new', 'tags.1': 'sale', stock: '', active: 'true' } },
      { line: 2, values: { sku: 'A2', 'price.amount': '3', 'price.currency': 'EUR', active: 'false' } },
    ]);
    expect(config).toMatchObject({ rootIsArray: true, rootIsObject: false, rowXPath: '', oneRowPerObject: false });
  });

  it('finds the array of objects under a key of a root object, skipping the members before it', async () => {
    const body = JSON.stringify({
      meta: { generated: '2026-11-24', tags: ['x'] },
      count: 2,
      data: { products: [{ id: 1 }, { id: 2, extra: { deep: 'y' } }] },
      after: 1,
    });
    const { all, config } = await read('/keyed.json', body);
    expect(all).toEqual([
      { line: 1, values: { id: '1' } },
      { line: 2, values: { id: '2', 'extra.deep': 'y' } },
    ]);
    expect(config).toMatchObject({ rootIsObject: true, rowXPath: 'data.products', rootIsArray: false, oneRowPerObject: false });
  });

  it('reads one row per object from JSON Lines, and a lone object as its one row', async () => {
    const lines = await read('/lines.json', '{"sku":"L1","n":{"a":1}}\n{"sku":"L2"}\n{"sku":"L3"}\n');
    expect(lines.rows.map((r) => r.values)).toEqual([{ sku: 'L1', 'n.a': '1' }, { sku: 'L2' }, { sku: 'L3' }]);
    expect(lines.config.oneRowPerObject).toBe(true);
    const lone = await read('/lone.json', '{"sku":"S1","name":"Only"}');
    expect(lone.rows.map((r) => r.values)).toEqual([{ sku: 'S1', name: 'Only' }]);
  });

  it('follows a rowXPath given by process', async () => {
    const body = JSON.stringify({ first: [{ a: 1 }], second: [{ b: 2 }, { b: 3 }] });
    const { rows } = await read('/given.json', body, {
      config: {
        rootIsObject: true,
        rowXPath: 'second',
        xpathMap: {},
        csvColumns: {},
        memPerRow: 0,
        estRowsPerChunk: 0,
        oneRowPerObject: false,
        rootIsArray: false,
        cdp: false,
        fileId: '',
        cdpXpathMap: {},
      },
    });
    expect(rows.map((r) => r.values)).toEqual([{ b: '2' }, { b: '3' }]);
  });

  it('rejects an element that is not an object with its position, and reads on', async () => {
    const { all } = await read('/mixed.json', '[{"sku":"M1"}, 42, {"sku":"M3"}]');
    expect(all).toEqual([
      { line: 1, values: { sku: 'M1' } },
      { line: 2, reason: 'The element is not an object.' },
      { line: 3, values: { sku: 'M3' } },
    ]);
  });

  it('rejects an element that is an array as it does a scalar, and counts it: the rows after it keep their positions', async () => {
    const root = await read('/nested-root.json', '[{"a":1},[1,2],{"a":3},[{"b":4}],{"a":5}]');
    expect(root.all).toEqual([
      { line: 1, values: { a: '1' } },
      { line: 2, reason: 'The element is not an object.' },
      { line: 3, values: { a: '3' } },
      { line: 4, reason: 'The element is not an object.' },
      { line: 5, values: { a: '5' } },
    ]);
    const keyed = await read('/nested-keyed.json', JSON.stringify({ products: [{ sku: 'a' }, [1, 2], { sku: 'c' }] }));
    expect(keyed.all).toEqual([
      { line: 1, values: { sku: 'a' } },
      { line: 2, reason: 'The element is not an object.' },
      { line: 3, values: { sku: 'c' } },
    ]);
  });

  it('rejects a row in which two members name one column (a key with a dot and a nested member, a key twice) with its position, and reads on', async () => {
    const body =
      '[{"id":"C1","a.b":"flat","a":{"b":"nested"}},{"id":"C2","a":{"b":"nested2"},"a.b":"flat2"},{"id":"C3","a":{"b":"n3"},"a.c":"f3"},' +
      '{"id":"C4","tags":["x"],"tags.0":"y"},{"id":"C5","id":"C6"}]';
    const { all } = await read('/dotted.json', body);
    expect(all).toEqual([
      // The values as read go along (the last of the two in the column), for the health report to name the key.
      { line: 1, reason: 'Two members name the column "a.b".', asRead: { id: 'C1', 'a.b': 'nested' } },
      { line: 2, reason: 'Two members name the column "a.b".', asRead: { id: 'C2', 'a.b': 'flat2' } },
      { line: 3, values: { id: 'C3', 'a.b': 'n3', 'a.c': 'f3' } },
      { line: 4, reason: 'Two members name the column "tags.0".', asRead: { id: 'C4', 'tags.0': 'y' } },
      { line: 5, reason: 'Two members name the column "id".', asRead: { id: 'C6' } },
    ]);
    // The same in a JSON line and in a lone object, which are rows themselves.
    const lines = await read('/dotted-lines.json', '{"sku":"L1","a.b":"flat","a":{"b":"nested"}}\n{"sku":"L2","a":{"b":"nested"}}\n');
    expect(lines.all).toEqual([
      { line: 1, reason: 'Two members name the column "a.b".', asRead: { sku: 'L1', 'a.b': 'nested' } },
      { line: 2, values: { sku: 'L2', 'a.b': 'nested' } },
    ]);
    const lone = await read('/dotted-lone.json', '{"sku":"S1","a":{"b":"nested"},"a.b":"flat"}');
    expect(lone.all).toEqual([{ line: 1, reason: 'Two members name the column "a.b".', asRead: { sku: 'S1', 'a.b': 'flat' } }]);
    // A member named like a property every object has is no second value.
    const plain = await read('/plain-names.json', '[{"constructor":"c","toString":"t","hasOwnProperty":"h"}]');
    expect(plain.all).toEqual([{ line: 1, values: { constructor: 'c', toString: 't', hasOwnProperty: 'h' } }]);
  });

  it('reads JSON Lines whose objects hold arrays of objects as one row a line, those arrays flattened', async () => {
    const body = '{"sku":"A","images":[{"url":"a.jpg"},{"url":"a2.jpg"}]}\n{"sku":"B","images":[{"url":"b.jpg"}]}\n{"sku":"C"}\n';
    const { all, config } = await read('/lines-nested.json', body);
    expect(all).toEqual([
      { line: 1, values: { sku: 'A', 'images.0.url': 'a.jpg', 'images.1.url': 'a2.jpg' } },
      { line: 2, values: { sku: 'B', 'images.0.url': 'b.jpg' } },
      { line: 3, values: { sku: 'C' } },
    ]);
    expect(config).toMatchObject({ oneRowPerObject: true, rootIsObject: false, rowXPath: '', rootIsArray: false });
    // The run reads it with the shape process found.
    const again = await read('/lines-nested.json', body, { config });
    expect(again.all).toEqual(all);
    // A lone object with an array of objects is that array's rows, as before.
    const lone = await read('/lone-variants.json', '{"sku":"A","variants":[{"size":"S"},{"size":"M"}]}');
    expect(lone.all).toEqual([
      { line: 1, values: { size: 'S' } },
      { line: 2, values: { size: 'M' } },
    ]);
    expect(lone.config).toMatchObject({ rootIsObject: true, rowXPath: 'variants', oneRowPerObject: false });
  });

  it('finds the row array after more than 10,000 values before it, and streams the rows of a large one', async () => {
    const allSkus = Array.from({ length: 12_000 }, (_, i) => `S${i}`);
    const { all, config } = await read('/long-prelude.json', JSON.stringify({ allSkus, products: [{ sku: 'S0' }, { sku: 'S1' }] }));
    expect(all).toEqual([
      { line: 1, values: { sku: 'S0' } },
      { line: 2, values: { sku: 'S1' } },
    ]);
    expect(config).toMatchObject({ rootIsObject: true, rowXPath: 'products' });
    const products = Array.from({ length: 15_000 }, (_, i) => ({ sku: `P${i}` }));
    const large = await read('/large-keyed.json', JSON.stringify({ products }));
    expect(large.all).toHaveLength(15_000);
    expect(large.all[14_999]).toEqual({ line: 15_000, values: { sku: 'P14999' } });
  });

  it('rejects a first JSON line of more than 10,000 values and reads on; a lone object that large without rows is not a feed', async () => {
    const huge = JSON.stringify({ sku: 'H', ids: Array.from({ length: 10_001 }, (_, i) => i) });
    const { all } = await read('/huge-line.json', `${huge}\n{"sku":"B"}\n`);
    expect(all).toEqual([
      { line: 1, reason: 'The object has more than 10000 values: too many for a row.' },
      { line: 2, values: { sku: 'B' } },
    ]);
    const error = await read('/huge-lone.json', huge).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'FEED_NOT_A_FEED', detail: expect.stringMatching(/without an array of objects/) });
  });

  it('decodes utf_16le with its BOM', async () => {
    const body = Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode('[{"name":"Ærø ✓"}]', 'utf16le')]);
    const { rows } = await read('/utf16.json', body, { characterEncoding: 'utf_16le' });
    expect(rows.map((r) => r.values)).toEqual([{ name: 'Ærø ✓' }]);
  });

  it.each([
    ['truncated JSON', '[{"sku":"T1"}, {"sku":'],
    ['HTML', '<html><body>Not found</body></html>'],
    ['a bare number', '42'],
    ['nothing', ''],
  ])('answers FEED_NOT_A_FEED for %s', async (_name, body) => {
    const error = await read('/bad.json', body).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('FEED_NOT_A_FEED');
  });
});
