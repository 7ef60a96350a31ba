import { AppError } from '@platform/errors';
import iconv from 'iconv-lite';
import type { FeedFormat } from '../feed-reading';
import { emptyFeedConfig } from './feed-reader';
import { httpFeedReader, httpLocation, readAll, startFeedHttpServer, type FeedHttpServer } from './feed-test-servers';
import { columnNameOf, detectRowXPath } from './xml-rows';

const XML_FORMAT: FeedFormat = { contentType: 'xml', characterEncoding: 'UTF_8', csvSeparator: 'auto', firstRowIsHeader: false, cdp: false };

const MERCHANT_RSS = `<?xml version="1.0"?>
<rss xmlns:g="http://base.google.com/ns/1.0" version="2.0">
  <channel>
    <title>Shop</title>
    <link>https://shop.example</link>
    <item>
      <g:id>P1</g:id>
      <title>Red &amp; blue shirt</title>
      <g:price>19.99 EUR</g:price>
      <g:shipping><g:country>DE</g:country><g:price>4.95 EUR</g:price></g:shipping>
      <g:additional_image_link>https://img/1a.jpg</g:additional_image_link>
      <g:additional_image_link>https://img/1b.jpg</g:additional_image_link>
      <description><![CDATA[<b>Soft</b> cotton]]></description>
    </item>
    <item>
      <g:id>P2</g:id>
      <title>Hat</title>
      <g:price>5.00 EUR</g:price>
    </item>
  </channel>
</rss>`;

describe('XML feeds (a real HTTP server on loopback)', () => {
  const feeds = new Map<string, string | Buffer>();
  let server: FeedHttpServer;

  beforeAll(async () => {
    server = await startFeedHttpServer((req, res) => {
      const body = feeds.get(req.url ?? '');
      if (body === undefined) res.writeHead(404).end();
      else res.writeHead(200, { 'content-type': 'application/xml' }).end(body);
    });
  });
  afterAll(() => server?.close());

  const read = async (path: string, body: string | Buffer, format: Partial<FeedFormat> = {}) => {
    feeds.set(path, body);
    const feed = await httpFeedReader([server.hostPort]).open(httpLocation(`${server.origin}${path}`), { ...XML_FORMAT, ...format });
    return { ...(await readAll(feed)), config: feed.config() };
  };

  it('reads a Google-Merchant RSS feed: item detected as the row, g: fields, nested leaves, repeats, CDATA', async () => {
    const { all, config } = await read('/merchant.xml', MERCHANT_RSS);
    expect(config.rowXPath).toBe('/rss/channel/item');
    expect(all).toEqual([
      {
        line: 6,
        values: {
          id: 'P1',
          title: 'Red & blue shirt',
          price: '19.99 EUR',
          'shipping.country': 'DE',
          'shipping.price': '4.95 EUR',
          additional_image_link: 'https://img/1a.jpg',
          'additional_image_link.2': 'https://img/1b.jpg',
          description: '<b>Soft</b> cotton',
        },
      },
      { line: 15, values: { id: 'P2', title: 'Hat', price: '5.00 EUR' } },
    ]);
    expect(config.xpathMap).toMatchObject({ id: 'g:id', 'shipping.price': 'g:shipping/g:price', 'additional_image_link.2': 'g:additional_image_link[2]' });
  });

  it('includes attributes of the row and of its elements', async () => {
    const body =
      '<products><product sku="A1"><name lang="en">Mug</name><image src="https://img/a.png"/></product><product sku="A2"><name>Cup</name></product></products>';
    const { rows, config } = await read('/attrs.xml', body);
    expect(config.rowXPath).toBe('/products/product');
    expect(rows.map((r) => r.values)).toEqual([
      { sku: 'A1', 'name.lang': 'en', name: 'Mug', 'image.src': 'https://img/a.png', image: '' },
      { sku: 'A2', name: 'Cup' },
    ]);
  });

  it('numbers a leaf repeated within a row afresh in every row, and rejects only the row with a malformed part', async () => {
    const body = [
      '<feed>',
      '<p><img src="a1"/><img src="a2"/><name>A</name></p>',
      '<p><img src="b1"/><name>B</name></p>',
      '<p><name>C &nbsp; D</name><img src="c1"/></p>',
      '<p><img src="d1"/><img src="d2"/><img src="d3"/></p>',
      '</feed>',
    ].join('\n');
    const { all } = await read('/repeats.xml', body, { config: { ...emptyFeedConfig({ cdp: false }), rowXPath: '/feed/p' } });
    expect(all).toEqual([
      { line: 2, values: { 'img.src': 'a1', img: '', 'img.src.2': 'a2', 'img.2': '', name: 'A' } },
      { line: 3, values: { 'img.src': 'b1', img: '', name: 'B' } },
      { line: 4, reason: 'Malformed XML: 4:17: undefined entity.' },
      { line: 5, values: { 'img.src': 'd1', img: '', 'img.src.2': 'd2', 'img.2': '', 'img.src.3': 'd3', 'img.3': '' } },
    ]);
  });

  it('reads the items of an RSS channel with atom:links, each path in a column of its own, and rejects only the rows with a bare & or a stray close tag', async () => {
    const items = Array.from({ length: 300 }, (_, i) => {
      const title = i === 2 ? 'Shirt & Tie' : i === 5 ? 'Hat</titel>' : `Shirt ${i}`;
      return `<item id="${i}"><id>P${i}</id><g:title>G ${i}</g:title><title>${title}</title></item>`;
    });
    const body = [
      '<?xml version="1.0"?>',
      '<rss version="2.0" xmlns:g="http://base.google.com/ns/1.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>Shop & Co</title>',
      '<atom:link href="https://shop.example/feed" rel="self" type="application/rss+xml"/><atom:link href="https://hub.example/" rel="hub"/>',
      ...items,
      '</channel></rss>',
    ].join('\n');
    const { all, config } = await read('/rss-atom.xml', body);
    expect(config.rowXPath).toBe('/rss/channel/item');
    expect(config.xpathMap).toEqual({ '@id': '@id', id: 'id', 'g:title': 'g:title', title: 'title' });
    expect(all).toHaveLength(300);
    expect(all[0]).toEqual({ line: 4, values: { '@id': '0', id: 'P0', 'g:title': 'G 0', title: 'Shirt 0' } });
    expect(all[2]).toEqual({ line: 6, reason: 'Malformed XML: 6:60: a bare & (write it as &amp;).' });
    expect(all[3]).toEqual({ line: 7, values: { '@id': '3', id: 'P3', 'g:title': 'G 3', title: 'Shirt 3' } });
    expect(all[5]).toEqual({ line: 9, reason: 'Malformed XML: 9:64: unmatched closing tag: titel.' });
    expect(all.filter((row) => 'reason' in row)).toHaveLength(2);
  });

  it('follows the rowXPath and xpathMap given by process, reading only the mapped columns', async () => {
    const body = '<feed><meta><item><x>no</x></item></meta><list><entry><code>E1</code><label>One</label></entry></list></feed>';
    const { rows } = await read('/given.xml', body, {
      config: { ...emptyFeedConfig({ cdp: false }), rowXPath: '/feed/list/entry', xpathMap: { sku: 'code' } },
    });
    expect(rows.map((r) => r.values)).toEqual([{ sku: 'E1' }]);
  });

  it('decodes CP1252 bytes', async () => {
    const { rows } = await read('/cp1252.xml', iconv.encode('<r><i><n>€ “x”</n></i><i><n>ü</n></i></r>', 'win1252'), { characterEncoding: 'CP1252' });
    expect(rows.map((r) => r.values.n)).toEqual(['€ “x”', 'ü']);
  });

  it.each([
    ['a document cut short', MERCHANT_RSS.slice(0, MERCHANT_RSS.indexOf('<g:id>P2'))],
    ['JSON', '[{"a":1}]'],
    ['XML without repeating rows', '<a>b</a>'],
  ])('answers FEED_NOT_A_FEED for %s', async (_name, body) => {
    const error = await read('/bad.xml', body).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('FEED_NOT_A_FEED');
  });

  it('detects rows and names columns', () => {
    expect(detectRowXPath('<catalog><info/><book id="1"><t>a</t></book><book id="2"><t>b</t></book></catalog>')).toBe('/catalog/book');
    expect(detectRowXPath('<rss><channel><title>x</title><item><id>1</id></item></channel></rss>')).toBe('/rss/channel/item');
    expect(columnNameOf('g:shipping/g:price')).toBe('shipping.price');
    expect(columnNameOf('image/@src')).toBe('image.src');
  });
});
