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

/**
 * An element path of the document, met once and kept: what a row needs of it (its path from the row,
 * the column it fills, how often the current row had it) is worked out the first time only, so an
 * element costs a map lookup by tag name instead of building and hashing its path strings.
 */
interface PathNode {
  /** From the root: `/rss/channel/item/g:price`. */
  readonly absolute: string;
  /** From the row element, inside a row (`g:price`); empty for the row element itself and outside rows. */
  readonly relative: string;
  readonly children: Map<string, PathNode>;
  /** The attributes met on this element, by name, as leaves of their own (`g:price/@unit`). */
  readonly attributes: Map<string, Leaf>;
  /** This element as a leaf (its text a value). */
  readonly leaf: Leaf;
}

/** A value's place in a row: its path from the row, and the row that last had it and how often. */
interface Leaf {
  readonly path: string;
  /** The column of the first occurrence in a row: undefined until asked, null when the path is not read. */
  column: string | null | undefined;
  lastRow: number;
  count: number;
}

const leafAt = (path: string): Leaf => ({ path, column: undefined, lastRow: -1, count: 0 });

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
  const rowPrefix = `${rowXPath}/`;
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

  const nodeAt = (absolute: string): PathNode => {
    const relative = absolute.startsWith(rowPrefix) ? absolute.slice(rowPrefix.length) : '';
    return { absolute, relative, children: new Map(), attributes: new Map(), leaf: leafAt(relative) };
  };
  const documentNode = nodeAt('');
  const attributeLeaf = (node: PathNode, name: string): Leaf => {
    let leaf = node.attributes.get(name);
    if (!leaf) {
      leaf = leafAt(node.relative === '' ? `@${name}` : `${node.relative}/@${name}`);
      node.attributes.set(name, leaf);
    }
    return leaf;
  };

  const ready: Array<FeedRow | RejectedFeedRow> = [];
  // The open elements, innermost last: their path, text so far, and whether they are leaves so far.
  const openNodes: PathNode[] = [];
  const openTexts: string[] = [];
  const openLeaves: boolean[] = [];
  let depth = 0;
  let row: { number: number; line: number; depth: number; values: Record<string, string>; broken?: string } | undefined;
  let rowsSeen = 0;
  let closing = false;
  const parser = new SaxesParser({ position: true, xmlns: false });

  /** A leaf's value in the current row: its first occurrence under its column, a repeat under `path[n]`'s. */
  const put = (leaf: Leaf, value: string) => {
    if (!row) return;
    leaf.count = leaf.lastRow === row.number ? leaf.count + 1 : 1;
    leaf.lastRow = row.number;
    let column: string | null | undefined;
    if (leaf.count === 1) {
      if (leaf.column === undefined) leaf.column = columnFor(leaf.path) ?? null;
      column = leaf.column;
    } else {
      column = columnFor(`${leaf.path}[${leaf.count}]`);
    }
    if (column !== undefined && column !== null) row.values[column] = value;
  };

  parser.on('opentag', (tag: SaxesTagPlain) => {
    const parent = depth > 0 ? openNodes[depth - 1] : documentNode;
    if (depth > 0) openLeaves[depth - 1] = false;
    let node = parent.children.get(tag.name);
    if (!node) {
      node = nodeAt(`${parent.absolute}/${tag.name}`);
      parent.children.set(tag.name, node);
    }
    if (!row && node.absolute === rowXPath) row = { number: rowsSeen, line: parser.line, depth, values: {} };
    openNodes[depth] = node;
    openTexts[depth] = '';
    openLeaves[depth] = true;
    depth++;
    if (row) for (const name in tag.attributes) put(attributeLeaf(node, name), tag.attributes[name] as string);
  });
  const onText = (chunk: string) => {
    if (row && depth > 0) openTexts[depth - 1] += chunk;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', () => {
    if (depth === 0) return;
    depth--;
    if (row && depth > row.depth && openLeaves[depth]) put(openNodes[depth].leaf, openTexts[depth].trim());
    openTexts[depth] = '';
    if (row && depth === row.depth) {
      rowsSeen++;
      ready.push(row.broken ? { line: row.line, reason: row.broken } : { line: row.line, values: row.values });
      row = undefined;
    }
  });
  parser.on('error', (error: Error) => {
    // Errors at the end (an unclosed element, no root) mean the document is cut short or not XML at all.
    if (closing || !row) throw feedNotAFeed(`The feed is not readable as XML: ${error.message}`);
    row.broken ??= `Malformed XML: ${error.message}`;
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
