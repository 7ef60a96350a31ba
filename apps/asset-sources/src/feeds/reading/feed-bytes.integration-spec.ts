import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { ZipFile } from 'yazl';
import type { FeedFormat } from '../feed-reading';
import { rejectionOf } from '../../asset-sources.test-support';
import { parseHere, parseInWorker } from './feed-parsing';
import { CSV_FORMAT, httpFeedReader, httpLocation, readAll, startFeedHttpServer, type FeedHttpServer } from './feed-test-servers';

jest.setTimeout(30_000);

const CSV = 'sku,name\nA1,"Hat, red"\nA2,Shirt\n';
const XML = '<?xml version="1.0"?><feed><item><sku>A1</sku></item><item><sku>A2</sku></item></feed>';
const JSON_FEED = '[{"sku":"A1"},{"sku":"A2"}]';
const HTML = '\n  <!DOCTYPE html>\n<html><head><title>Sign in</title></head><body><form></form></body></html>';
const format = (contentType: FeedFormat['contentType']): FeedFormat => ({ ...CSV_FORMAT, contentType });

/** A zip archive as exporters write them: deflated from a stream (sizes in a data descriptor after the data) or stored. */
async function zipOf(entries: { name: string; content?: string; stored?: boolean }[]): Promise<Buffer> {
  const zip = new ZipFile();
  for (const { name, content, stored } of entries) {
    if (content === undefined) zip.addEmptyDirectory(name);
    else if (stored) zip.addBuffer(Buffer.from(content), name, { compress: false });
    else zip.addReadStream(Readable.from([Buffer.from(content)]), name);
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe.each([
  ['in the calling thread', parseHere],
  ['in a parser thread', parseInWorker],
])('feed bytes before the parser (a real HTTP server on loopback), parsed %s', (_where, parsing) => {
  const bodies = new Map<string, Buffer>();
  let server: FeedHttpServer;

  beforeAll(async () => {
    server = await startFeedHttpServer((req, res) => {
      const body = bodies.get((req.url ?? '').split('?')[0]);
      if (!body) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body);
    });
    bodies.set('/products.csv.gz', gzipSync(CSV));
    // Two gzip members back to back, as `cat a.gz b.gz` or a streaming exporter writes them.
    bodies.set('/members.csv.gz', Buffer.concat([gzipSync('sku,name\nA1,Hat\n'), gzipSync('A2,Shirt\n')]));
    bodies.set('/products.xml.gz', gzipSync(XML));
    bodies.set('/products.json.gz', gzipSync(JSON_FEED));
    const many = `sku,name\n${Array.from({ length: 2000 }, (_, i) => `A${i},Product ${(i * 7919) % 10007}`).join('\n')}\n`;
    const whole = gzipSync(many);
    bodies.set('/cut.csv.gz', whole.subarray(0, whole.length / 2));
    bodies.set('/bomb.csv.gz', gzipSync(`sku\n${'A'.repeat(4 * 1024 * 1024)}\n`));
    // A zip of one feed file, with the folder and macOS resource fork a zip tool adds beside it.
    const withToolEntries = (name: string, content: string, stored = false) =>
      zipOf([{ name: 'export/' }, { name: `export/${name}`, content, stored }, { name: `__MACOSX/export/._${name}`, content: 'resource fork' }]);
    bodies.set('/products.csv.zip', await withToolEntries('products.csv', CSV));
    bodies.set('/stored.csv.zip', await withToolEntries('products.csv', CSV, true));
    bodies.set('/products.xml.zip', await withToolEntries('products.xml', XML));
    bodies.set('/products.json.zip', await withToolEntries('products.json', JSON_FEED));
    bodies.set('/bomb.csv.zip', await zipOf([{ name: 'bomb.csv', content: `sku\n${'A'.repeat(4 * 1024 * 1024)}\n` }]));
    const zipped = await zipOf([{ name: 'many.csv', content: many }]);
    bodies.set('/cut.csv.zip', zipped.subarray(0, zipped.length / 2));
    bodies.set(
      '/two.zip',
      await zipOf([
        { name: 'a.csv', content: CSV },
        { name: 'b.csv', content: CSV },
      ]),
    );
    bodies.set('/empty.zip', await zipOf([{ name: 'export/' }]));
    bodies.set('/login.html.zip', await zipOf([{ name: 'login.html', content: HTML }]));
    bodies.set('/login.html', Buffer.from(HTML));
    bodies.set('/login.html.gz', gzipSync(HTML));
    bodies.set('/feed.xml', Buffer.from(XML));
    bodies.set('/feed.json', Buffer.from(JSON_FEED));
    bodies.set('/image.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x0a, 0x49, 0x48, 0x44, 0x52, 0x00]));
    bodies.set('/utf16-no-bom.csv', Buffer.from(CSV, 'utf16le'));
  });
  afterAll(async () => server?.close());

  const read = async (path: string, contentType: FeedFormat['contentType'] = 'csv') => {
    const feed = await httpFeedReader([server.hostPort], { maxBytes: 1024 * 1024 }, parsing).open(httpLocation(`${server.origin}${path}`), format(contentType));
    return readAll(feed);
  };
  const failure = (path: string, contentType: FeedFormat['contentType'] = 'csv') => rejectionOf(read(path, contentType));

  it.each([
    ['csv', '/products.csv.gz'],
    ['csv', '/members.csv.gz'],
    ['xml', '/products.xml.gz'],
    ['json', '/products.json.gz'],
    ['csv', '/products.csv.zip'],
    ['csv', '/stored.csv.zip'],
    ['xml', '/products.xml.zip'],
    ['json', '/products.json.zip'],
  ] as const)('reads a gzip or zip %s feed (%s) as the feed it holds', async (contentType, path) => {
    const { rows } = await read(path, contentType);
    expect(rows.map((row) => row.values.sku)).toEqual(['A1', 'A2']);
  });

  it('holds decompressed bytes to the feed cap, and fails a gzip cut short', async () => {
    expect(await failure('/bomb.csv.gz')).toMatchObject({
      code: 'FEED_TOO_LARGE',
      detail: expect.stringMatching(/decompresses to more than the cap of 1048576 bytes/),
    });
    expect(await failure('/cut.csv.gz')).toMatchObject({ code: 'FEED_NOT_A_FEED', detail: expect.stringMatching(/is gzip but does not decompress/) });
  });

  it('holds a zip to the feed cap decompressed, and refuses one cut short, of two files or of none, saying so', async () => {
    expect(await failure('/bomb.csv.zip')).toMatchObject({
      code: 'FEED_TOO_LARGE',
      detail: expect.stringMatching(/decompresses to more than the cap of 1048576 bytes/),
    });
    expect(await failure('/cut.csv.zip')).toMatchObject({ code: 'FEED_NOT_A_FEED', detail: expect.stringMatching(/zip archive at .* does not decompress/) });
    expect(await failure('/two.zip')).toMatchObject({
      code: 'FEED_NOT_A_FEED',
      detail: expect.stringMatching(/holds more than one file \("a\.csv", "b\.csv", \.\.\.\): zip the feed file alone/),
    });
    expect(await failure('/empty.zip')).toMatchObject({ code: 'FEED_NOT_A_FEED', detail: expect.stringMatching(/zip archive at .* holds no file/) });
  });

  it.each(['csv', 'xml', 'json'] as const)('refuses an HTML page as a %s feed, zipped or not, saying what it is', async (contentType) => {
    for (const path of ['/login.html', '/login.html.gz', '/login.html.zip'])
      expect(await failure(path, contentType)).toMatchObject({ code: 'FEED_NOT_A_FEED', detail: expect.stringMatching(/is an HTML page, not a feed/) });
  });

  it('refuses XML, JSON and binary bytes read as CSV, naming the setting to change', async () => {
    expect(await failure('/feed.xml')).toMatchObject({ code: 'FEED_NOT_A_FEED', detail: 'The feed is XML, not CSV: set contentType xml.' });
    expect(await failure('/feed.json')).toMatchObject({ code: 'FEED_NOT_A_FEED', detail: 'The feed is JSON, not CSV: set contentType json.' });
    expect(await failure('/image.png')).toMatchObject({ code: 'FEED_NOT_A_FEED', detail: expect.stringMatching(/NUL characters/) });
    expect(await failure('/utf16-no-bom.csv')).toMatchObject({ code: 'FEED_NOT_A_FEED', detail: expect.stringMatching(/set characterEncoding utf_16le/) });
    const declared = await httpFeedReader([server.hostPort], {}, parsing).open(httpLocation(`${server.origin}/utf16-no-bom.csv`), {
      ...CSV_FORMAT,
      characterEncoding: 'utf_16le',
    });
    expect((await readAll(declared)).rows.map((row) => row.values.name)).toEqual(['Hat, red', 'Shirt']);
  });
});
