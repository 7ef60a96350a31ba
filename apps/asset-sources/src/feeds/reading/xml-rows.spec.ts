import type { FeedRow, RejectedFeedRow } from '../feed-reading';
import { detectRowXPath, xmlRows, type XmlShape } from './xml-rows';

/** Every row of `text` read in chunks of `chunkChars`, and the shape announced. */
async function read(text: string, chunkChars = text.length, given: Partial<XmlShape> = {}) {
  async function* chunks(): AsyncGenerator<string> {
    for (let at = 0; at < text.length; at += chunkChars) yield text.slice(at, at + chunkChars);
  }
  let shape: XmlShape | undefined;
  const rows: Array<FeedRow | RejectedFeedRow> = [];
  for await (const batch of xmlRows(chunks(), given, (announced) => (shape = announced))) rows.push(...batch);
  return { rows, shape };
}

const BARE = (line: number, column: number) => ({ line, reason: `Malformed XML: ${line}:${column}: a bare & (write it as &amp;).` });

describe('xmlRows', () => {
  describe('a bare & (not written &amp;)', () => {
    const FEED = [
      '<?xml version="1.0"?>',
      "<!-- Tom & Jerry's shop -->",
      '<?xml-stylesheet href="feed.xsl?a=1&b=2"?>',
      '<rss><channel><title>Shop & Co</title>',
      '<item><id>1</id><title>Shirt &amp; Tie &#233; &#x1F600;</title><d><![CDATA[Fish & Chips]]></d></item>',
      '<item><id>2</id><title>Shirt & Tie</title></item>',
      '<item><id>3</id><title>AT&T</title></item>',
      '<item code="a&b"><id>4</id></item>',
      '<item><id>5</id><title>&nbsp</title></item>',
      '<item><id>6</id><title>Hat</title></item>',
      '</channel></rss>',
    ].join('\n');

    it.each([1, 2, 3, 5, 8, 13, 64, FEED.length])(
      'rejects only the row that has it, with its line and why, and reads on (chunks of %i characters)',
      async (chunkChars) => {
        const { rows, shape } = await read(FEED, chunkChars);
        expect(shape?.rowXPath).toBe('/rss/channel/item');
        expect(rows).toEqual([
          // References, and an & in CDATA, a comment or a processing instruction, are fine.
          { line: 5, values: { id: '1', title: 'Shirt & Tie é 😀', d: 'Fish & Chips' } },
          BARE(6, 30),
          BARE(7, 26),
          // In the row's start tag.
          BARE(8, 14),
          // An entity without its `;`.
          BARE(9, 24),
          { line: 10, values: { id: '6', title: 'Hat' } },
        ]);
      },
    );

    it('hands out the rows after it as the feed streams, though no ; ever follows it', async () => {
      const rowCount = 20_000;
      let pulled = 0;
      async function* feed(): AsyncGenerator<string> {
        pulled++;
        yield '<products>\n<product><id>0</id><title>Fish & Chips</title></product>\n';
        let text = '';
        for (let i = 1; i < rowCount; i++) {
          text += `<product><id>${i}</id><title>Title ${i}</title></product>\n`;
          if (text.length > 16 * 1024) {
            pulled++;
            yield text;
            text = '';
          }
        }
        pulled++;
        yield `${text}</products>`;
      }
      const totalChunks = 1 + Math.ceil((rowCount * 50) / (16 * 1024));
      const rows: Array<FeedRow | RejectedFeedRow> = [];
      let pulledAtFirstBatch = 0;
      for await (const batch of xmlRows(feed(), { rowXPath: '/products/product' }, () => undefined)) {
        if (rows.length === 0) pulledAtFirstBatch = pulled;
        rows.push(...batch);
      }
      expect(rows).toHaveLength(rowCount);
      expect(rows[0]).toEqual(BARE(2, 32));
      expect(rows.slice(1).every((row) => 'values' in row)).toBe(true);
      expect(rows[rowCount - 1]).toEqual({ line: rowCount + 1, values: { id: String(rowCount - 1), title: `Title ${rowCount - 1}` } });
      // Not held until the end (saxes alone reads everything after the & as an entity name).
      expect(pulledAtFirstBatch).toBeLessThan(totalChunks / 10);
    });

    it('detects the rows of a head that has one with no ; after it', () => {
      expect(detectRowXPath('<catalog><title>Bits & Bobs</title><p><s>1</s></p><p><s>2</s></p></catalog>')).toBe('/catalog/p');
    });
  });

  describe('row detection', () => {
    it('takes the items of an RSS channel whose atom:links come first, and the entries of an Atom feed whose links do', () => {
      const atomLinks = '<atom:link href="https://shop.example/feed" rel="self" type="application/rss+xml"/><atom:link href="https://hub.example/" rel="hub"/>';
      expect(detectRowXPath(`<rss xmlns:atom="a"><channel><title>Shop</title>${atomLinks}<item><id>1</id></item><item><id>2</id></item></channel></rss>`)).toBe(
        '/rss/channel/item',
      );
      expect(
        detectRowXPath(
          '<feed><title>Shop</title><link rel="self" href="/f"/><link rel="alternate" href="/"/><entry><id>1</id></entry><entry><id>2</id></entry></feed>',
        ),
      ).toBe('/feed/entry');
    });

    it('prefers elements with fields to elements with attributes alone, then the one repeated most', () => {
      expect(
        detectRowXPath(
          '<catalog><categories><category id="1"/><category id="2"/></categories><products><product><sku>A</sku></product><product><sku>B</sku></product></products></catalog>',
        ),
      ).toBe('/catalog/products/product');
      expect(detectRowXPath('<catalog><group><n>a</n></group><group><n>b</n></group><p><s>1</s></p><p><s>2</s></p><p><s>3</s></p></catalog>')).toBe(
        '/catalog/p',
      );
      // Rows of attributes alone are still rows.
      expect(detectRowXPath('<rows><row sku="A" price="1"/><row sku="B" price="2"/></rows>')).toBe('/rows/row');
    });

    describe('with a single row in the head', () => {
      const shipping = (country: string, price: string) => `<g:shipping><g:country>${country}</g:country><g:price>${price}</g:price></g:shipping>`;
      const merchant = (groups: string) =>
        '<rss xmlns:g="g" xmlns:atom="a"><channel><title>Shop</title><link>https://shop.example</link><atom:link href="/f" rel="self"/><atom:link href="/h" rel="hub"/>' +
        `<item><g:id>1</g:id><title>Shirt</title><g:price>9 USD</g:price>${groups}</item></channel></rss>`;

      it.each([
        ['once', shipping('US', '0 USD')],
        ['twice', shipping('US', '0 USD') + shipping('CA', '5 USD')],
      ])('takes the item of an RSS channel, not a group of its fields (g:shipping %s)', (_times, groups) => {
        expect(detectRowXPath(merchant(groups))).toBe('/rss/channel/item');
      });

      it('takes the entry of an Atom feed, not an element with fields ahead of it', () => {
        expect(detectRowXPath('<feed><title>Shop</title><author><name>Ann</name></author><entry><id>1</id><title>Shirt</title></entry></feed>')).toBe(
          '/feed/entry',
        );
      });

      it('takes the element whose children carry the values, an element nested in it being a group of its columns, once or repeated', () => {
        expect(detectRowXPath('<items><item><id>1</id><a><b>n</b></a></item></items>')).toBe('/items/item');
        expect(detectRowXPath('<items><item><id>1</id><a><b>n</b></a><a><b>m</b></a></item></items>')).toBe('/items/item');
        expect(detectRowXPath('<items><item><id>1</id><img src="a"/><img src="b"/><a><b>n</b></a><a><b>m</b></a></item></items>')).toBe('/items/item');
        const ship = (country: string) => `<ship><c>${country}</c><p>0</p></ship>`;
        expect(
          detectRowXPath(`<x><channel><title>S</title><link>l</link><item><id>1</id><t>T</t><p>9</p>${ship('US')}${ship('CA')}</item></channel></x>`),
        ).toBe('/x/channel/item');
        // A wrapper has fewer fields than the row in it.
        expect(detectRowXPath('<catalog><store><name>S</name><product><id>1</id><title>T</title></product></store></catalog>')).toBe('/catalog/store/product');
      });

      it('reads a repeated group into numbered columns of the row', async () => {
        const { rows, shape } = await read(merchant(shipping('US', '0 USD') + shipping('CA', '5 USD')));
        expect(shape?.rowXPath).toBe('/rss/channel/item');
        expect(rows).toEqual([
          {
            line: 1,
            values: {
              id: '1',
              title: 'Shirt',
              price: '9 USD',
              'shipping.country': 'US',
              'shipping.price': '0 USD',
              'shipping.country.2': 'CA',
              'shipping.price.2': '5 USD',
            },
          },
        ]);
        expect(shape?.xpathMap).toMatchObject({ 'shipping.country': 'g:shipping/g:country', 'shipping.price.2': 'g:shipping/g:price[2]' });
      });
    });

    it('takes the rows repeated in a wrapper that has fields of its own, fewer than a row', () => {
      const product = (id: string) => `<product><id>${id}</id><title>T</title></product>`;
      expect(detectRowXPath(`<catalog><store><name>S</name>${product('1')}${product('2')}</store></catalog>`)).toBe('/catalog/store/product');
    });
  });

  describe('columns', () => {
    /** Every path of xpathMap under a column of its own. */
    const expectOneColumnPerPath = (xpathMap: Record<string, string>) => expect(new Set(Object.values(xpathMap)).size).toBe(Object.keys(xpathMap).length);

    it("reads a row's attribute and its element of the same name into two columns, the element's under the name", async () => {
      const { rows, shape } = await read(
        '<products><product id="42"><id>SKU-42</id><name>A</name></product><product id="43"><id>SKU-43</id></product></products>',
      );
      expect(rows).toEqual([
        { line: 1, values: { '@id': '42', id: 'SKU-42', name: 'A' } },
        { line: 1, values: { '@id': '43', id: 'SKU-43' } },
      ]);
      expect(shape?.xpathMap).toEqual({ '@id': '@id', id: 'id', name: 'name' });
    });

    it('reads <g:title> and <title> into two columns in either order, the prefixed one keeping its prefix', async () => {
      for (const item of ['<g:title>G</g:title><title>Plain</title>', '<title>Plain</title><g:title>G</g:title>']) {
        const { rows, shape } = await read(`<rss xmlns:g="g"><channel><item><g:id>1</g:id>${item}</item><item><g:id>2</g:id>${item}</item></channel></rss>`);
        expect(rows.map((row) => ('values' in row ? row.values : row))).toEqual([
          { id: '1', title: 'Plain', 'g:title': 'G' },
          { id: '2', title: 'Plain', 'g:title': 'G' },
        ]);
        expect(shape?.xpathMap).toMatchObject({ id: 'g:id', title: 'title', 'g:title': 'g:title' });
      }
    });

    it('never puts two paths in one column, however their names meet', async () => {
      const { rows, shape } = await read('<r xmlns:x="x"><i a.b="1"><a><b>2</b></a><a.b>3</a.b><x:a.b>4</x:a.b></i><i a.b="5"><a.b>6</a.b></i></r>');
      expectOneColumnPerPath(shape?.xpathMap ?? {});
      expect(Object.keys(shape?.xpathMap ?? {})).toHaveLength(4);
      const values = rows.map((row) => ('values' in row ? Object.values(row.values).sort() : row));
      expect(values).toEqual([
        ['1', '2', '3', '4'],
        ['5', '6'],
      ]);
    });
  });

  describe('a close tag that matches no open element', () => {
    it.each([
      ['detected', {}],
      ['given', { rowXPath: '/r/i' }],
    ])('rejects only the row that has it and reads on (row element %s)', async (_how, given) => {
      const { rows, shape } = await read('<r>\n<i><t>a</t></i>\n<i><t>b</tt></i>\n<i><t>c</t></i>\n</r>', 5, given);
      expect(shape?.rowXPath).toBe('/r/i');
      expect(rows).toEqual([
        { line: 2, values: { t: 'a' } },
        { line: 3, reason: 'Malformed XML: 3:12: unmatched closing tag: tt.' },
        { line: 4, values: { t: 'c' } },
      ]);
    });
  });

  it('tells the line a row starts on when its start tag spans several', async () => {
    const { rows } = await read('<r>\n<i\n  id="1"\n>\n<t>a</t>\n</i>\n<i id="2"><t>b</t></i>\n<i\r\n id="3"><t>c</t></i><i\n id="4"/></r>', 4);
    expect(rows.map((row) => row.line)).toEqual([2, 7, 8, 9]);
  });
});
