import { SaxesParser, type SaxesTagPlain } from 'saxes';
import type { FeedConfig, FeedRow, FeedRowBatch, RejectedFeedRow } from '../feed-reading';
import { feedNotAFeed } from './feed-errors';
import { peekText } from './text-head';

/** What an XML feed's shape was read as. */
export type XmlShape = Pick<FeedConfig, 'rowXPath' | 'xpathMap'>;

/** How much of the feed the row element is detected from. */
const DETECTION_HEAD_CHARS = 256 * 1024;

/**
 * saxes, except for a close tag that matches no open element (`<t>a</tt>`): saxes closes every open
 * element for it, the root included, and the document after it no longer nests (every row after it
 * lost, the feed failing); here it is an error where it stands (`unmatched closing tag: tt.`), the open
 * elements left open, so only the element around it is broken. A close tag that matches an open
 * element further out (`<i><t>a</i>`) closes it as saxes does, each element it closes an error.
 * `closeTag`, `name` and `tags` are saxes' own (6.0, not in its typings): the override takes the case
 * out of saxes' way by handing it no open elements, so saxes reports it and moves on as for a close tag
 * outside the root.
 */
class RowsSaxesParser extends SaxesParser<{ position: true; xmlns: false }> {}
skipUnmatchedCloseTags(RowsSaxesParser.prototype);
const rowsParser = () => new RowsSaxesParser({ position: true, xmlns: false });

function skipUnmatchedCloseTags(parserPrototype: SaxesParser) {
  interface Internals {
    name: string;
    tags: { name: string }[];
    closeTag(this: Internals): void;
  }
  const prototype = parserPrototype as unknown as Internals;
  const closeTag = prototype.closeTag;
  if (typeof closeTag !== 'function') throw new Error('saxes has no closeTag to override (xml-rows.ts, unmatched close tags)');
  prototype.closeTag = function (this: Internals) {
    const { tags, name } = this;
    const top = tags.length - 1;
    if (top < 0 || tags[top]?.name === name || tags.some((tag) => tag.name === name)) return closeTag.call(this);
    this.tags = [];
    try {
      closeTag.call(this);
    } finally {
      this.tags = tags;
    }
  };
}

/** The most characters a reference (`&amp;`, `&#x1F600;`) may take between its `&` and `;`. */
const MAX_REFERENCE_CHARS = 64;
const REFERENCE_UNDECIDED = -1;
const REFERENCE_BARE = -2;

/**
 * Where the reference at `amp` in `text` ends (after its `;`); REFERENCE_BARE for an `&` that begins
 * none (`Shirt & Tie`, `AT&T`, `&nbsp` without its `;`), REFERENCE_UNDECIDED when the text ends first.
 * Only the reference's form is checked (name characters, or `#` and digits, up to a `;`): what it
 * names, saxes checks (`&nbsp;` is an undefined entity, `&#xZZ;` malformed).
 */
function referenceEnd(text: string, amp: number): number {
  const limit = Math.min(text.length, amp + 1 + MAX_REFERENCE_CHARS);
  for (let at = amp + 1; at < limit; at++) {
    const c = text.charCodeAt(at);
    if (c === 0x3b /* ; */) return at > amp + 1 ? at + 1 : REFERENCE_BARE;
    // Letters, digits, # : _ - . and anything beyond ASCII (saxes checks the name's characters).
    const nameLike =
      (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x3a) || c === 0x23 || c === 0x5f || c === 0x2d || c === 0x2e || c >= 0x80;
    if (!nameLike) return REFERENCE_BARE;
  }
  return limit === text.length && limit < amp + 1 + MAX_REFERENCE_CHARS ? REFERENCE_UNDECIDED : REFERENCE_BARE;
}

/**
 * Where the next `<!` or `<?` (`second`: `!` or `?`) of `text` from `from` is, -1 if none: found by its
 * second character, rarer in a feed than `<` (indexOf('<!') stops at every `<`, several times slower).
 */
function markupAt(text: string, second: '!' | '?', from: number): number {
  for (let at = text.indexOf(second, from + 1); at !== -1; at = text.indexOf(second, at + 1)) if (text.charCodeAt(at - 1) === 0x3c /* < */) return at - 1;
  return -1;
}

/**
 * Hands XML text on as it streams, each bare `&` (one that begins no reference: `Shirt & Tie`) written
 * `&amp;` and told (`onBare`, called when the text before it has been handed on). saxes reads from an
 * `&` to the next `;` as an entity's name, whatever lies between: one bare `&` would swallow the rows
 * after it (and hold them in memory) up to the next `;` anywhere in the feed. CDATA sections, comments
 * and processing instructions are passed over (an `&` is plain text there). The text is searched with
 * indexOf for `&`, `!` and `?` only; what may continue into the next chunk (an `&` with no `;` yet, a
 * `<!` or an end marker cut short) is held back and handed on with it.
 */
class BareAmpersands {
  private held = '';
  /** The end (`]]>`, `-->`, `?>`) of the CDATA section, comment or processing instruction being passed over. */
  private skippingTo: string | undefined;

  constructor(
    private readonly write: (text: string) => void,
    private readonly onBare: () => void,
  ) {}

  /** Hands on what `chunk` completes; `last`: the text ends with it (nothing held back). */
  push(chunk: string, last = false): void {
    const text = this.held.length > 0 ? this.held + chunk : chunk;
    this.held = '';
    let written = 0;
    let at = 0;
    let amp = -2;
    let bang = -2;
    let pi = -2;
    const holdFrom = (from: number) => {
      if (from > written) this.write(text.slice(written, from));
      this.held = text.slice(from);
    };
    for (;;) {
      const end = this.skippingTo;
      if (end !== undefined) {
        const found = text.indexOf(end, at);
        if (found < 0) return holdFrom(last ? text.length : Math.max(at, text.length - end.length + 1));
        at = found + end.length;
        this.skippingTo = undefined;
      }
      if (amp !== -1 && amp < at) amp = text.indexOf('&', at);
      if (bang !== -1 && bang < at) bang = markupAt(text, '!', at);
      if (pi !== -1 && pi < at) pi = markupAt(text, '?', at);
      const markup = bang === -1 ? pi : pi === -1 ? bang : Math.min(bang, pi);
      if (amp === -1 && markup === -1) {
        // A `<` at the very end may begin a `<!` or `<?`.
        return holdFrom(!last && text.length > at && text.charCodeAt(text.length - 1) === 0x3c ? text.length - 1 : text.length);
      }
      if (markup !== -1 && (amp === -1 || markup < amp)) {
        if (markup === pi) {
          this.skippingTo = '?>';
          at = pi + 2;
        } else if (text.startsWith('<!--', bang)) {
          this.skippingTo = '-->';
          at = bang + 4;
        } else if (text.startsWith('<![CDATA[', bang)) {
          this.skippingTo = ']]>';
          at = bang + 9;
        } else if (!last && text.length - bang < 9 && ('<![CDATA['.startsWith(text.slice(bang)) || '<!--'.startsWith(text.slice(bang)))) {
          return holdFrom(bang);
        } else {
          at = bang + 2; // a declaration (DOCTYPE, ENTITY): its text is searched as the document's
        }
        continue;
      }
      const referenceAt = referenceEnd(text, amp);
      if (referenceAt === REFERENCE_UNDECIDED && !last) return holdFrom(amp);
      if (referenceAt >= 0) {
        at = referenceAt;
        continue;
      }
      if (amp > written) this.write(text.slice(written, amp));
      this.onBare();
      this.write('&amp;');
      written = at = amp + 1;
    }
  }
}

/** A head (or any whole text) with each bare `&` written `&amp;`; see BareAmpersands. */
function withoutBareAmpersands(text: string): string {
  const parts: string[] = [];
  new BareAmpersands(
    (part) => parts.push(part),
    () => undefined,
  ).push(text, true);
  return parts.length === 1 ? (parts[0] as string) : parts.join('');
}

/** The rows of RSS and Atom, as their formats define them: a channel's items, a feed's entries. */
const FORMAT_ROWS = ['/rss/channel/item', '/feed/entry'];

/** The element paths of a feed's head (`/rss/channel/item`), as row detection sees them. */
interface HeadPaths {
  /** How often each path is met. */
  counts: Map<string, number>;
  /** The paths of each path's child elements; a path without any is a leaf. */
  children: Map<string, Set<string>>;
  hasAttributes: Set<string>;
  /** In how many occurrences of its parent element each path is met (the root's: none). */
  parentOccurrences: Map<string, number>;
}

function headPaths(head: string): HeadPaths {
  const paths: HeadPaths = { counts: new Map(), children: new Map(), hasAttributes: new Set(), parentOccurrences: new Map() };
  const lastParent = new Map<string, number>();
  const stack: Array<{ path: string; occurrence: number }> = [];
  let opened = 0;
  const parser = rowsParser();
  parser.on('opentag', (tag: SaxesTagPlain) => {
    const parent = stack.at(-1);
    const path = `${parent?.path ?? ''}/${tag.name}`;
    if (parent) {
      let siblings = paths.children.get(parent.path);
      if (!siblings) paths.children.set(parent.path, (siblings = new Set()));
      siblings.add(path);
      if (lastParent.get(path) !== parent.occurrence) {
        lastParent.set(path, parent.occurrence);
        paths.parentOccurrences.set(path, (paths.parentOccurrences.get(path) ?? 0) + 1);
      }
    }
    paths.counts.set(path, (paths.counts.get(path) ?? 0) + 1);
    if (Object.keys(tag.attributes).length > 0) paths.hasAttributes.add(path);
    stack.push({ path, occurrence: opened++ });
  });
  parser.on('closetag', () => void stack.pop());
  parser.on('error', () => undefined);
  try {
    parser.write(withoutBareAmpersands(head));
  } catch {
    // A head cut mid-token is expected; what was seen so far is enough.
  }
  return paths;
}

/**
 * The repeating element of a feed's head, as an absolute path (`/rss/channel/item`): the items of RSS
 * and the entries of Atom however few; else the element path seen at least twice that has child
 * elements (a product has fields), the shallowest, among those as shallow the one seen most often (the
 * first seen of equals); else the same among those with attributes alone (`<row sku="A1" price="9"/>`);
 * with a single row in the head, the shallowest element whose children are all leaves or groups of its
 * fields. So an RSS channel's `<atom:link rel="self" href="..."/>` or an Atom feed's `<link>`s ahead of
 * its items are not taken for its rows. Undefined when the head has none.
 *
 * A group is an element of leaves inside a row (`<g:shipping><g:country>`, columns `shipping.country`,
 * repeated `shipping.country.2`), and so is a leaf repeated in one (`<img src>`, `img.src.2`): it is met
 * inside a single occurrence of its parent only, below the root, and the parent has at least as many
 * leaves of its own. A row has as many fields as a group in it or more, a wrapper fewer than its rows
 * (`<store><name>` around `<product>`s): with a single row in the head, its `g:shipping`s are not taken
 * for the rows, and a store around a product is not taken for a row. RSS and Atom are named, as a
 * channel's title, link and description may outnumber the fields of its items.
 */
export function detectRowXPath(head: string): string | undefined {
  const { counts, children, hasAttributes, parentOccurrences } = headPaths(head);
  const known = FORMAT_ROWS.find((path) => counts.has(path));
  if (known) return known;
  const depth = (path: string) => path.split('/').length;
  const isLeaf = (path: string) => !children.has(path);
  const childrenOf = (path: string) => [...(children.get(path) ?? [])];
  const leavesOf = (path: string) => childrenOf(path).filter(isLeaf).length;
  const isGroup = (path: string) => {
    const parent = path.slice(0, path.lastIndexOf('/'));
    if (depth(parent) <= 2 || parentOccurrences.get(path) !== 1 || !childrenOf(path).every(isLeaf)) return false;
    return leavesOf(parent) - (isLeaf(path) ? 1 : 0) >= Math.max(1, leavesOf(path));
  };
  const byDepth = [...counts.keys()].filter((path) => depth(path) > 2).sort((a, b) => depth(a) - depth(b) || (counts.get(b) ?? 0) - (counts.get(a) ?? 0));
  const repeated = (path: string) => (counts.get(path) ?? 0) >= 2 && !isGroup(path);
  const rows = byDepth.find((path) => repeated(path) && !isLeaf(path)) ?? byDepth.find((path) => repeated(path) && hasAttributes.has(path));
  if (rows) return rows;
  return byDepth.find((path) => !isLeaf(path) && childrenOf(path).every((child) => isLeaf(child) || isGroup(child)));
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
 * A column's name from its path when columnNameOf's is another path's: the prefixes and the `@` of an
 * attribute kept (`g:title`, `@id`, `image.@src`).
 */
function fullColumnNameOf(path: string): string {
  return path.replace(/\//g, '.').replace(/\[(\d+)\]/g, '.$1');
}

/**
 * Which of the paths first met in one row gets a name first, when two would have the same one: an
 * element path without prefixes (`title`, `id`), then one with (`g:title`), then an attribute (`@id`):
 * `<product id="42"><id>SKU-42</id>` reads as `id` (the element) and `@id`.
 */
const namingRank = (path: string) => (path.includes('@') ? 2 : path.includes(':') ? 1 : 0);

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
  /** The column of the first occurrence in a row: undefined until the end of the first row that has it, null when the path is not read. */
  column: string | null | undefined;
  lastRow: number;
  count: number;
}

const leafAt = (path: string): Leaf => ({ path, column: undefined, lastRow: -1, count: 0 });

/** A value of a path without a column yet, kept until its row ends: a leaf's first occurrence, or a repeat (`img[2]`). */
interface Unnamed {
  readonly path: string;
  readonly leaf: Leaf | undefined;
  readonly value: string;
}

/**
 * Streams the rows of an XML feed with a SAX parser: each element at rowXPath is a row, its leaf
 * elements and attributes (of the row and below) are its values by their path relative to the row
 * (xpathMap: column -> path). A leaf repeated within a row gets an index (`image[2]`, column `image.2`).
 * Namespaced names keep their prefix in paths (`g:id`), so Google Merchant RSS reads as is. Every path
 * has a column of its own: when two would share a name (`<g:title>` and `<title>`, `<product id="42">`
 * and its `<id>`), the prefixed one and the attribute keep their prefix and `@` (`g:title`, `@id`), and
 * should that name be taken too, a number (`a.b_2`).
 * A malformed part inside a row rejects that row, its line and the reason told, and reading goes on: a
 * bare `&` (`Shirt & Tie`: the reason says to write it `&amp;`), a close tag matching no open element
 * (`<t>a</tt>`), an undefined entity (`&nbsp;`). A row with a bare `&` is rejected rather than read
 * with the `&` taken as meant: the owner learns which row breaks the XML and how to mend it, as for
 * `&nbsp;`, instead of a feed that other XML readers refuse passing here unnoticed. One outside the rows
 * (a channel's `<title>Shop & Co</title>`) is read as `&`: no row depends on it. A document that does
 * not close fails the feed.
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

  /** The column a path is read into: the given map's, or a new one named after the path (not yet in xpathMap). */
  const columnFor = (path: string): string | undefined => {
    const known = columnOfPath.get(path);
    if (known !== undefined || fixedMap) return known;
    let name = columnNameOf(path);
    if (takenColumns.has(name)) name = fullColumnNameOf(path);
    for (let n = 2; takenColumns.has(name); n++) name = `${fullColumnNameOf(path)}_${n}`;
    takenColumns.add(name);
    columnOfPath.set(path, name);
    return name;
  };

  /**
   * Names the paths a row met first (its values kept aside until then), in the order of namingRank,
   * and adds them to its values and to xpathMap in the order they came.
   */
  const nameNewPaths = (values: Record<string, string>, unnamed: Unnamed[]) => {
    const columns = new Map<Unnamed, string | undefined>();
    for (const entry of [...unnamed].sort((a, b) => namingRank(a.path) - namingRank(b.path))) columns.set(entry, columnFor(entry.path));
    for (const entry of unnamed) {
      const column = columns.get(entry);
      if (entry.leaf) entry.leaf.column = column ?? null;
      if (column === undefined) continue;
      if (!fixedMap) shape.xpathMap[column] = entry.path;
      values[column] = entry.value;
    }
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
  let row: { number: number; line: number; depth: number; values: Record<string, string>; unnamed?: Unnamed[]; broken?: string } | undefined;
  let rowsSeen = 0;
  let closing = false;
  /**
   * Outside rows, the line saxes was on at its last event: where a row's start tag begins (`<item`),
   * as nothing lies between (whitespace between tags is text, whose event comes at the next `<`). saxes'
   * line at the row's own start tag is that of its `>`, after attributes on lines of their own.
   */
  let lineBefore = 1;
  /** A bare `&` met outside a row: the row's own if a row's start tag (its attributes) had it. */
  let bareOutsideRow: string | undefined;
  const parser = rowsParser();

  /** A leaf's value in the current row: its first occurrence under its column, a repeat under `path[n]`'s. */
  const put = (leaf: Leaf, value: string) => {
    if (!row) return;
    leaf.count = leaf.lastRow === row.number ? leaf.count + 1 : 1;
    leaf.lastRow = row.number;
    if (leaf.count === 1) {
      const column = leaf.column;
      if (column === undefined) (row.unnamed ??= []).push({ path: leaf.path, leaf, value });
      else if (column !== null) row.values[column] = value;
    } else {
      const path = `${leaf.path}[${leaf.count}]`;
      const column = columnOfPath.get(path);
      if (column !== undefined) row.values[column] = value;
      else if (!fixedMap) (row.unnamed ??= []).push({ path, leaf: undefined, value });
    }
  };

  parser.on('opentag', (tag: SaxesTagPlain) => {
    const parent = depth > 0 ? openNodes[depth - 1] : documentNode;
    if (depth > 0) openLeaves[depth - 1] = false;
    let node = parent.children.get(tag.name);
    if (!node) {
      node = nodeAt(`${parent.absolute}/${tag.name}`);
      parent.children.set(tag.name, node);
    }
    if (!row) {
      if (node.absolute === rowXPath) row = { number: rowsSeen, line: lineBefore, depth, values: {} };
      else lineBefore = parser.line;
    }
    if (bareOutsideRow !== undefined) {
      if (row) row.broken ??= bareOutsideRow;
      bareOutsideRow = undefined;
    }
    openNodes[depth] = node;
    openTexts[depth] = '';
    openLeaves[depth] = true;
    depth++;
    if (row) for (const name in tag.attributes) put(attributeLeaf(node, name), tag.attributes[name] as string);
  });
  const onText = (chunk: string) => {
    if (row) {
      if (depth > 0) openTexts[depth - 1] += chunk;
    } else {
      bareOutsideRow = undefined;
      lineBefore = parser.line;
    }
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
      if (row.broken) ready.push({ line: row.line, reason: row.broken });
      else {
        if (row.unnamed) nameNewPaths(row.values, row.unnamed);
        ready.push({ line: row.line, values: row.values });
      }
      row = undefined;
    }
    if (!row) lineBefore = parser.line;
  });
  parser.on('error', (error: Error) => {
    // Errors at the end (an unclosed element, no root) mean the document is cut short or not XML at all.
    if (closing || !row) throw feedNotAFeed(`The feed is not readable as XML: ${error.message}`);
    row.broken ??= `Malformed XML: ${error.message}`;
  });
  const ampersands = new BareAmpersands(
    (part) => parser.write(part),
    () => {
      const reason = `Malformed XML: ${parser.line}:${parser.column + 1}: a bare & (write it as &amp;).`;
      if (row) row.broken ??= reason;
      else bareOutsideRow = reason;
    },
  );

  try {
    for await (const chunk of text) {
      ampersands.push(chunk);
      if (ready.length > 0) {
        announce();
        yield ready.splice(0);
      }
    }
    ampersands.push('', true);
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
