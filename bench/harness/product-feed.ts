/**
 * The generated product feed of the feed benchmarks: 10 columns, about 300 bytes a row as CSV (a quoted
 * description holding a comma in each row) and 500 as XML (a `<product>` element with a child
 * element per column), row `i` the same in both.
 */
export type FeedFormat = 'csv' | 'xml';

export const COLUMNS = ['sku', 'title', 'description', 'link', 'image_link', 'price', 'brand', 'category', 'availability', 'gtin'];

/** One product row of about 300 bytes, with a quoted field holding a comma. */
function productRow(i: number): string {
  const sku = `SKU-${String(i).padStart(8, '0')}`;
  return [
    sku,
    `Product ${i} in colour ${i % 17}`,
    `"Comfortable, durable item number ${i}; machine washable and made from recycled material of grade ${i % 9}"`,
    `https://shop.example.com/p/${sku}`,
    `https://cdn.example.com/images/${sku}.jpg`,
    `${(i % 500) + 0.99} USD`,
    `Brand ${i % 120}`,
    `Apparel > Category ${i % 40} > Sub ${i % 7}`,
    i % 11 === 0 ? 'out of stock' : 'in stock',
    String(400_000_000_000 + i),
  ].join(',');
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The same row as an XML element: one child element per column, in column order. */
function productElement(i: number): string {
  const fields = productValues(i);
  return `<product>${COLUMNS.map((c, k) => `<${c}>${escapeXml(fields[k])}</${c}>`).join('')}</product>`;
}

/** Row `i`'s values, in column order, as a reader of either format gives them. */
export const productValues = (i: number): string[] => parseCsvLine(productRow(i));

/** The fields of one generated CSV line (only the description is quoted, and holds no quote). */
function parseCsvLine(line: string): string[] {
  const fields: string[] = [];
  for (let at = 0; at <= line.length;) {
    if (line[at] === '"') {
      const close = line.indexOf('"', at + 1);
      fields.push(line.slice(at + 1, close));
      at = close + 2;
    } else {
      const comma = line.indexOf(',', at);
      const stop = comma === -1 ? line.length : comma;
      fields.push(line.slice(at, stop));
      at = stop + 1;
    }
  }
  return fields;
}

/** What comes before the first row: the header line, or the XML declaration and the root's start tag. */
export const feedHead = (format: FeedFormat) => (format === 'csv' ? `${COLUMNS.join(',')}\n` : '<?xml version="1.0" encoding="UTF-8"?>\n<products>\n');

/** Row `i`, without its line break. */
export const feedRow = (format: FeedFormat, i: number) => (format === 'csv' ? productRow(i) : productElement(i));

/** What comes after the last row. */
export const feedTail = (format: FeedFormat) => (format === 'csv' ? '' : '</products>\n');
