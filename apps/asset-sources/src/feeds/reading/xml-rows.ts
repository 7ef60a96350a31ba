import { SaxesParser, type SaxesTagPlain } from 'saxes';
import type { FeedConfig, FeedRow, FeedRowBatch, RejectedFeedRow } from '../feed-reading';
import { feedNotAFeed } from './feed-errors';
import { peekText } from './text-head';

/** What an XML feed's shape was read as. */
export type XmlShape = Pick<FeedConfig, 'rowXPath' | 'xpathMap'>;

/** How much of the feed the row element is detected from. */
const DETECTION_HEAD_CHARS = 256 * 1024;

/**
 * The repeating element of a feed's head, as an absolute path (`/rss/channel/item`): the shallowest
 * element path seen at least twice that has child elements or attributes; with a single row in the
 * head, the shallowest element whose children are all leaves. Undefined when the head has none.
 */
export function detectRowXPath(head: string): string | undefined {
  const counts = new Map<string, number>();
  const hasChildElements = new Set<string>();
  const hasAttributes = new Set<string>();
  const stack: string[] = [];
  const parser = new SaxesParser({ position: false, xmlns: false });
  parser.on('opentag', (tag: SaxesTagPlain) => {
    const parent = stack.at(-1);
    if (parent !== undefined) hasChildElements.add(parent);
    const path = `${parent ?? ''}/${tag.name}`;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    if (Object.keys(tag.attributes).length > 0) hasAttributes.add(path);
    stack.push(path);
  });
  parser.on('closetag', () => void stack.pop());
  parser.on('error', () => undefined);
  try {
    parser.write(head);
  } catch {
    // A head cut mid-token is expected; what was seen so far is enough.
  }
  const depth = (path: string) => path.split('/').length;
  const byDepth = [...counts.keys()].filter((path) => depth(path) > 2).sort((a, b) => depth(a) - depth(b));
  const repeated = byDepth.find((path) => (counts.get(path) ?? 0) >= 2 && (hasChildElements.has(path) || hasAttributes.has(path)));
  if (repeated) return repeated;
  const childrenOf = (path: string) => [...counts.keys()].filter((p) => p.startsWith(`${path}/`) && depth(p) === depth(path) + 1);
  return byDepth.find((path) => hasChildElements.has(path) && childrenOf(path).every((child) => !hasChildElements.has(child)));
}

/** A column's name from its path in the row: namespace prefixes dropped, steps joined with dots (`g:shipping/g:price` -> `shipping.price`, `@id` -> `id`). */
export function columnNameOf(path: string): string {
  return path
    .split('/')
    .map((step) => step.replace(/^@/, '').replace(/^[^:[\]]+:/, ''))
    .join('.')
    .replace(/\[(\d+)\]/g, '.$1');
}

interface OpenElement {
  /** From the root: `/rss/channel/item/g:price`. */
  path: string;
  /** From the row element, inside a row (`g:price`); empty outside. */
  relative: string;
  text: string;
  leaf: boolean;
}

/**
 * Streams the rows of an XML feed with a SAX parser: each element at rowXPath is a row, its leaf
 * elements and attributes (of the row and below) are its values by their path relative to the row
 * (xpathMap: column -> path). A leaf repeated within a row gets an index (`image[2]`, column `image.2`).
 * Namespaced names keep their prefix in paths (`g:id`), so Google Merchant RSS reads as is.
 * A malformed part inside a row rejects that row; a document that does not close fails the feed.
 */
export async function* xmlRows(source: AsyncIterable<string>, given: Partial<XmlShape>, onShape: (shape: XmlShape) => void): AsyncGenerator<FeedRowBatch> {
  let text = source;
  let rowXPath = given.rowXPath;
  if (!rowXPath) {
    const peeked = await peekText(source, (head) => head.length >= DETECTION_HEAD_CHARS, DETECTION_HEAD_CHARS);
    text = peeked.text;
    rowXPath = detectRowXPath(peeked.head);
    if (!rowXPath) throw feedNotAFeed('The feed is not XML with a repeating row element in its first 256 KB.');
  }
  const fixedMap = given.xpathMap && Object.keys(given.xpathMap).length > 0 ? given.xpathMap : undefined;
  const shape: XmlShape = { rowXPath, xpathMap: { ...(fixedMap ?? {}) } };
  const columnOfPath = new Map(Object.entries(shape.xpathMap).map(([column, path]) => [path, column]));
  const takenColumns = new Set(Object.keys(shape.xpathMap));
  let announced = false;

  /** The column a path is read into: the given map's, or a new one named after the path. */
  const columnFor = (path: string): string | undefined => {
    const known = columnOfPath.get(path);
    if (known !== undefined || fixedMap) return known;
    let name = columnNameOf(path);
    if (takenColumns.has(name)) name = path.replace(/\//g, '.').replace(/^@/, '');
    takenColumns.add(name);
    columnOfPath.set(path, name);
    shape.xpathMap[name] = path;
    return name;
  };

  const ready: Array<FeedRow | RejectedFeedRow> = [];
  const stack: OpenElement[] = [];
  let row: { number: number; line: number; depth: number; values: Record<string, string>; broken?: string } | undefined;
  let rowsSeen = 0;
  let closing = false;
  const parser = new SaxesParser({ position: true, xmlns: false });
  // Which row last had each path, and how often: a leaf repeated within a row gets an index. Kept
  // across rows (a row's number tells a stale count), so no row allocates a map of its own.
  const lastRowOf = new Map<string, number>();
  const countOf = new Map<string, number>();

  const put = (path: string, value: string) => {
    if (!row) return;
    const count = lastRowOf.get(path) === row.number ? (countOf.get(path) ?? 1) + 1 : 1;
    lastRowOf.set(path, row.number);
    countOf.set(path, count);
    const column = columnFor(count === 1 ? path : `${path}[${count}]`);
    if (column !== undefined) row.values[column] = value;
  };

  parser.on('opentag', (tag: SaxesTagPlain) => {
    const parent = stack.at(-1);
    const absolute = `${parent?.path ?? ''}/${tag.name}`;
    if (parent) parent.leaf = false;
    if (!row && absolute === rowXPath) row = { number: rowsSeen, line: parser.line, depth: stack.length, values: {} };
    // The path relative to the row, computed once per element of a row.
    const relative = row ? absolute.slice(rowXPath.length + 1) : '';
    stack.push({ path: absolute, relative, text: '', leaf: true });
    if (row) for (const name in tag.attributes) put(relative === '' ? `@${name}` : `${relative}/@${name}`, tag.attributes[name] as string);
  });
  const onText = (chunk: string) => {
    const top = stack.at(-1);
    if (top && row) top.text += chunk;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', () => {
    const element = stack.pop() as OpenElement;
    if (row && stack.length > row.depth && element.leaf) {
      put(element.relative, element.text.trim());
    }
    if (row && stack.length === row.depth) {
      rowsSeen++;
      ready.push(row.broken ? { line: row.line, reason: row.broken } : { line: row.line, values: row.values });
      row = undefined;
    }
  });
  parser.on('error', (error: Error) => {
    // Errors at the end (an unclosed element, no root) mean the document is cut short or not XML at all.
    if (closing || !row) throw feedNotAFeed(`The feed is not readable as XML: ${error.message}`);
    row.broken ??= `malformed XML: ${error.message}`;
  });

  try {
    for await (const chunk of text) {
      parser.write(chunk);
      if (ready.length > 0) {
        announce();
        yield ready.splice(0);
      }
    }
    closing = true;
    parser.close();
  } catch (error) {
    if (error instanceof Error && error.name === 'Error' && /^\d+:\d+: /.test(error.message))
      throw feedNotAFeed(`The feed is not readable as XML: ${error.message}`);
    throw error;
  }
  announce();
  if (ready.length > 0) yield ready.splice(0);
  if (rowsSeen === 0) throw feedNotAFeed(`The XML feed has no ${rowXPath} element.`);

  function announce() {
    if (announced) return;
    announced = true;
    onShape(shape);
  }
}
