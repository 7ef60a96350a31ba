import { createHash } from 'node:crypto';
import iconv from 'iconv-lite';
import { AppError } from '@platform/errors';
import { emptyFeedConfig } from './feed-reader';
import { CSV_FORMAT, httpFeedReader, httpLocation, readAll, startFeedHttpServer, type FeedHttpServer } from './feed-test-servers';

jest.setTimeout(30_000);

const rejectionOf = async (promise: Promise<unknown>): Promise<AppError> => {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
};

describe('http(s) feeds in CSV (a real HTTP server on loopback)', () => {
  const feeds = new Map<string, { body: Buffer | string; status?: number; headers?: Record<string, string> }>();
  let server: FeedHttpServer;
  let other: FeedHttpServer;

  beforeAll(async () => {
    server = await startFeedHttpServer((req, res) => {
      const path = (req.url ?? '').split('?')[0];
      if (path === '/private' && req.headers.authorization !== `Basic ${Buffer.from('feeder:s3cret').toString('base64')}`) {
        res.writeHead(401).end();
        return;
      }
      if (path === '/to-loopback') {
        res.writeHead(302, { location: `${other.origin}/plain.csv` }).end();
        return;
      }
      const feed = feeds.get(path === '/private' ? '/plain.csv' : path);
      if (!feed) {
        res.writeHead(404).end('no such feed');
        return;
      }
      res.writeHead(feed.status ?? 200, { 'content-type': 'text/csv', ...feed.headers });
      res.end(feed.body);
    });
    other = await startFeedHttpServer((_req, res) => res.end('sku\nX\n'));
    feeds.set('/plain.csv', {
      body: 'sku,name,price\nA1,Shirt,10.00\nA2,"Hat, red",4.50\n',
      headers: { etag: '"v1"', 'last-modified': 'Tue, 24 Nov 2026 10:00:00 GMT' },
    });
  });

  afterAll(async () => {
    await server?.close();
    await other?.close();
  });

  const reader = () => httpFeedReader([server.hostPort]);

  it('streams rows keyed by the header, with their line, the version and the content hash', async () => {
    const feed = await reader().open(httpLocation(`${server.origin}/plain.csv`), CSV_FORMAT);
    const { all } = await readAll(feed);
    expect(all).toEqual([
      { line: 2, values: { sku: 'A1', name: 'Shirt', price: '10.00' } },
      { line: 3, values: { sku: 'A2', name: 'Hat, red', price: '4.50' } },
    ]);
    expect(feed.version).toEqual({ etag: '"v1"', lastModified: 'Tue, 24 Nov 2026 10:00:00 GMT' });
    expect(feed.contentHash()).toBe(
      createHash('sha256')
        .update(feeds.get('/plain.csv')?.body ?? '')
        .digest('hex'),
    );
    expect(feed.config().csvColumns).toEqual({ sku: 0, name: 1, price: 2 });
  });

  it('keeps quoted separators, doubled quotes and line breaks inside a field, and counts lines across them', async () => {
    feeds.set('/quoted.csv', { body: 'sku,description\r\nB1,"two\r\nlines, and ""quotes"""\r\n\r\nB2,plain\r\n' });
    const { all } = await readAll(await reader().open(httpLocation(`${server.origin}/quoted.csv`), CSV_FORMAT));
    expect(all).toEqual([
      { line: 2, values: { sku: 'B1', description: 'two\r\nlines, and "quotes"' } },
      { line: 5, values: { sku: 'B2', description: 'plain' } },
    ]);
  });

  it.each([
    ['tab', 'sku\tname\nC1\tBag|Blue\n', { sku: 'C1', name: 'Bag|Blue' }],
    ['pipe', 'sku|name\nC1|Bag, Blue\n', { sku: 'C1', name: 'Bag, Blue' }],
  ] as const)('splits on the %s separator', async (separator, body, expected) => {
    feeds.set(`/${separator}.csv`, { body });
    const { rows } = await readAll(await reader().open(httpLocation(`${server.origin}/${separator}.csv`), { ...CSV_FORMAT, csvSeparator: separator }));
    expect(rows.map((r) => r.values)).toEqual([expected]);
  });

  it.each([
    ['a tab', 'sku\tname\tnote\nD1\tMug\t"a, b"\n'],
    ['a pipe', 'sku|name|note\nD1|Mug|"a, b"\n'],
    ['a semicolon', 'sku;name;note\nD1;Mug;"a, b"\n'],
    ['a comma', '"s,k,u|x",name,note\nD1,Mug,"a, b"\n'],
  ])('detects %s separator when it is auto', async (_name, body) => {
    feeds.set('/auto.csv', { body });
    const { rows } = await readAll(await reader().open(httpLocation(`${server.origin}/auto.csv`), { ...CSV_FORMAT, csvSeparator: 'auto' }));
    expect(Object.values(rows[0].values)).toEqual(['D1', 'Mug', 'a, b']);
  });

  it("finds process's columns by their header name: an export whose columns moved fills each from its own field", async () => {
    // Process saw sku,name,price; the retailer's export now has a column more, in the middle, and another order.
    feeds.set('/moved.csv', { body: 'name,sku,brand,price\nShirt,A1,Acme,10.00\nHat,A2,Acme,4.50\n' });
    const config = { ...emptyFeedConfig(CSV_FORMAT, ''), csvColumns: { sku: 0, name: 1, price: 2 } };
    const { all } = await readAll(await reader().open(httpLocation(`${server.origin}/moved.csv`), { ...CSV_FORMAT, config }));
    expect(all).toEqual([
      { line: 2, values: { sku: 'A1', name: 'Shirt', price: '10.00' } },
      { line: 3, values: { sku: 'A2', name: 'Hat', price: '4.50' } },
    ]);
    // A column the header no longer has is in no row; without a header the positions name the fields.
    feeds.set('/dropped.csv', { body: 'sku,name\nB1,Cap\n' });
    const dropped = await readAll(await reader().open(httpLocation(`${server.origin}/dropped.csv`), { ...CSV_FORMAT, config }));
    expect(dropped.all).toEqual([{ line: 2, values: { sku: 'B1', name: 'Cap' } }]);
    feeds.set('/positions.csv', { body: 'C1,Scarf,3.00,extra\n' });
    const positions = await readAll(await reader().open(httpLocation(`${server.origin}/positions.csv`), { ...CSV_FORMAT, firstRowIsHeader: false, config }));
    expect(positions.all).toEqual([{ line: 1, values: { sku: 'C1', name: 'Scarf', price: '3.00' } }]);
  });

  it('names the columns column1.. when the first row is not a header, and reads it as a row', async () => {
    feeds.set('/noheader.csv', { body: 'E1,Cap\nE2,Scarf\n' });
    const { all } = await readAll(await reader().open(httpLocation(`${server.origin}/noheader.csv`), { ...CSV_FORMAT, firstRowIsHeader: false }));
    expect(all).toEqual([
      { line: 1, values: { column1: 'E1', column2: 'Cap' } },
      { line: 2, values: { column1: 'E2', column2: 'Scarf' } },
    ]);
  });

  it('names a repeated or empty header column with a suffix no other column has, every column kept', async () => {
    feeds.set('/dup.csv', { body: 'sku,price,price_2,price,,column5,price\nA,1,2,3,4,5,6\n' });
    const feed = await reader().open(httpLocation(`${server.origin}/dup.csv`), CSV_FORMAT);
    const { rows } = await readAll(feed);
    expect(rows).toEqual([{ line: 2, values: { sku: 'A', price: '1', price_2: '2', price_3: '3', column5_2: '4', column5: '5', price_4: '6' } }]);
    expect(feed.config().csvColumns).toEqual({ sku: 0, price: 1, price_2: 2, price_3: 3, column5_2: 4, column5: 5, price_4: 6 });
  });

  it('rejects a row of the wrong width with its line and reads on', async () => {
    feeds.set('/ragged.csv', { body: 'sku,name\nF1,Belt\nF2\nF3,Sock,extra\nF4,Tie\n' });
    const { rows, rejected } = await readAll(await reader().open(httpLocation(`${server.origin}/ragged.csv`), CSV_FORMAT));
    expect(rows.map((r) => r.values.sku)).toEqual(['F1', 'F4']);
    expect(rejected).toEqual([
      { line: 3, reason: 'The row has 1 field where the header has 2.' },
      { line: 4, reason: 'The row has 3 fields where the header has 2.' },
    ]);
  });

  it("rejects a row of the wrong width as the header has it also when process's columns name the fields, whichever of them it names", async () => {
    // An unquoted separator in a value makes a row one field wider: read by name, its fields would shift.
    feeds.set('/process-ragged.csv', { body: 'sku,name,price\nR1,ok,1\nR6,Cherry, red,6\nR7,short\nR8,fine,8\n' });
    const open = (format = CSV_FORMAT) => reader().open(httpLocation(`${server.origin}/process-ragged.csv`), format);
    const rejected = [
      { line: 3, reason: 'The row has 4 fields where the header has 3.' },
      { line: 4, reason: 'The row has 2 fields where the header has 3.' },
    ];
    const direct = await readAll(await open());
    expect(direct.rows.map((r) => r.values)).toEqual([
      { sku: 'R1', name: 'ok', price: '1' },
      { sku: 'R8', name: 'fine', price: '8' },
    ]);
    expect(direct.rejected).toEqual(rejected);
    const columnSets: Array<Record<string, number>> = [
      { sku: 0, name: 1, price: 2 },
      { sku: 0, name: 1 },
    ];
    for (const csvColumns of columnSets) {
      const config = { ...emptyFeedConfig(CSV_FORMAT, ''), csvColumns };
      const fromProcess = await readAll(await open({ ...CSV_FORMAT, config }));
      expect(fromProcess.rows.map((r) => r.values.sku)).toEqual(['R1', 'R8']);
      expect(fromProcess.rejected).toEqual(rejected);
    }
  });

  it('fails the feed on an unterminated quote (FEED_NOT_A_FEED)', async () => {
    feeds.set('/broken.csv', { body: 'sku,name\nG1,"never closed\nG2,x\n' });
    const error = await rejectionOf(readAll(await reader().open(httpLocation(`${server.origin}/broken.csv`), CSV_FORMAT)));
    expect(error.code).toBe('FEED_NOT_A_FEED');
  });

  it('fails the feed where a quote runs on past a megabyte, without reading the rest of it into memory', async () => {
    feeds.set('/runaway.csv', { body: `sku,name\nG1,ok\nG2,"${'x'.repeat(1_200_000)}` });
    const error = await rejectionOf(
      readAll(await httpFeedReader([server.hostPort], { maxBytes: 4 * 1024 * 1024 }).open(httpLocation(`${server.origin}/runaway.csv`), CSV_FORMAT)),
    );
    expect(error.code).toBe('FEED_NOT_A_FEED');
    expect(error.detail).toMatch(/after line 2: Max Record Size/);
  });

  it.each([
    ['iso_8859_1', iconv.encode('sku,name\nH1,Crème brûlée\n', 'latin1'), 'Crème brûlée'],
    ['CP1252', iconv.encode('sku,name\nH1,€5 “deal”\n', 'win1252'), '€5 “deal”'],
    ['utf_16le', Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode('sku,name\nH1,Ünïcödé ✓\n', 'utf16le')]), 'Ünïcödé ✓'],
    ['UTF_8', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('sku,name\nH1,Straße ✓\n')]), 'Straße ✓'],
  ] as const)('decodes %s (a BOM dropped, not part of the first column)', async (encoding, body, name) => {
    feeds.set('/encoded.csv', { body });
    const { rows } = await readAll(await reader().open(httpLocation(`${server.origin}/encoded.csv`), { ...CSV_FORMAT, characterEncoding: encoding }));
    expect(rows.map((r) => r.values)).toEqual([{ sku: 'H1', name }]);
  });

  it('honours a BOM over the encoding the settings name', async () => {
    feeds.set('/bom.csv', { body: Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode('sku\nÄ1\n', 'utf16le')]) });
    const { rows } = await readAll(await reader().open(httpLocation(`${server.origin}/bom.csv`), { ...CSV_FORMAT, characterEncoding: 'iso_8859_1' }));
    expect(rows.map((r) => r.values)).toEqual([{ sku: 'Ä1' }]);
  });

  it('decodes a multi-byte character split across network chunks', async () => {
    const bytes = Buffer.from('sku,name\nJ1,' + 'é'.repeat(40_000) + '\n');
    feeds.set('/big-utf8.csv', { body: bytes });
    const { rows } = await readAll(await reader().open(httpLocation(`${server.origin}/big-utf8.csv`), CSV_FORMAT));
    expect(rows[0].values.name).toBe('é'.repeat(40_000));
  });

  it('sends additionalParams as the query of a GET and the form body of a POST', async () => {
    await readAll(await reader().open(httpLocation(`${server.origin}/plain.csv?a=1`, { additionalParams: '?b=2' }), CSV_FORMAT));
    expect(server.requests.at(-1)).toMatchObject({ method: 'GET', url: '/plain.csv?a=1&b=2' });
    await readAll(await reader().open(httpLocation(`${server.origin}/plain.csv`, { additionalParams: 'b=2', httpMethod: 'POST' }), CSV_FORMAT));
    expect(server.requests.at(-1)).toMatchObject({ method: 'POST', url: '/plain.csv', body: 'b=2' });
  });

  it('sends basic auth; wrong credentials are FEED_AUTH_FAILED without echoing them', async () => {
    const { rows } = await readAll(await reader().open(httpLocation(`${server.origin}/private`, { username: 'feeder', password: 's3cret' }), CSV_FORMAT));
    expect(rows).toHaveLength(2);
    const error = await rejectionOf(reader().open(httpLocation(`${server.origin}/private`, { username: 'feeder', password: 'wrong-pass' }), CSV_FORMAT));
    expect(error.code).toBe('FEED_AUTH_FAILED');
    expect(JSON.stringify({ ...error, detail: error.detail })).not.toContain('wrong-pass');
  });

  it('answers a missing feed FEED_NOT_FOUND and an error status FEED_BAD_STATUS', async () => {
    expect((await rejectionOf(reader().open(httpLocation(`${server.origin}/missing.csv`), CSV_FORMAT))).code).toBe('FEED_NOT_FOUND');
    feeds.set('/down.csv', { body: 'oops', status: 503 });
    expect((await rejectionOf(reader().open(httpLocation(`${server.origin}/down.csv`), CSV_FORMAT))).code).toBe('FEED_BAD_STATUS');
  });

  it('stops a feed over the size cap (FEED_TOO_LARGE), announced or streamed', async () => {
    feeds.set('/large.csv', { body: 'sku\n' + 'K\n'.repeat(5_000) });
    const small = httpFeedReader([server.hostPort], { maxBytes: 1_000 });
    expect((await rejectionOf(small.open(httpLocation(`${server.origin}/large.csv`), CSV_FORMAT).then(readAll))).code).toBe('FEED_TOO_LARGE');
    feeds.set('/chunked.csv', { body: 'sku\n' + 'K\n'.repeat(5_000), headers: { 'transfer-encoding': 'chunked' } });
    const error = await rejectionOf(small.open(httpLocation(`${server.origin}/chunked.csv`), CSV_FORMAT).then(readAll));
    expect(error.code).toBe('FEED_TOO_LARGE');
  });

  it('answers an unreachable host FEED_UNREACHABLE', async () => {
    const closed = await startFeedHttpServer(() => undefined);
    await closed.close();
    const error = await rejectionOf(httpFeedReader([closed.hostPort]).open(httpLocation(`${closed.origin}/x.csv`), CSV_FORMAT));
    expect(error.code).toBe('FEED_UNREACHABLE');
  });

  it('answers an https url at a plain-http host FEED_UNREACHABLE in a sentence, not in OpenSSL text', async () => {
    const url = `https://${server.hostPort}/plain.csv`;
    const error = await rejectionOf(reader().open(httpLocation(url), CSV_FORMAT));
    expect(error).toMatchObject({
      code: 'FEED_UNREACHABLE',
      detail: `The connection to ${url} failed: the TLS handshake failed because the server did not answer in TLS (perhaps it serves plain http).`,
      extensions: { cause: 'OUTBOUND_CONNECTION_FAILED' },
    });
  });

  it.each(['http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/feed.csv', 'http://[::ffff:127.0.0.1]:80/feed.csv', 'http://localhost/feed.csv'])(
    'refuses %s through the outbound guard (FEED_REFUSED)',
    async (url) => {
      const error = await rejectionOf(reader().open(httpLocation(url), CSV_FORMAT));
      expect(error.code).toBe('FEED_REFUSED');
    },
  );

  it('refuses a redirect to a loopback address that is not admitted, without reaching it', async () => {
    const before = other.requests.length;
    const error = await rejectionOf(reader().open(httpLocation(`${server.origin}/to-loopback`), CSV_FORMAT));
    expect(error.code).toBe('FEED_REFUSED');
    expect(other.requests.length).toBe(before);
  });
});
