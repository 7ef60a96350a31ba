import { Readable, pipeline } from 'node:stream';
import { parser as jsonParser } from 'stream-json';
import type { FeedConfig, FeedRow, FeedRowBatch, RejectedFeedRow } from '../feed-reading';
import { feedNotAFeed } from './feed-errors';

interface Token {
  name: string;
  value?: string | null;
}

/** What a JSON feed's shape was read as: the config fields JSON uses. */
export type JsonShape = Pick<FeedConfig, 'rootIsArray' | 'rootIsObject' | 'rowXPath' | 'oneRowPerObject'>;

/**
 * Values (and rows) of the first root object kept in case it turns out to be a row itself (a lone object, or
 * the first of JSON Lines): bounded so a huge object cannot fill memory. Past it the object is no longer kept,
 * and it can no longer be a row.
 */
const MAX_ROOT_ROW_VALUES = 10_000;
const NOT_AN_OBJECT = 'The element is not an object.';
/** Why a row is rejected in which two members name one column (`{"a.b":1,"a":{"b":2}}`, a key twice): one value would be lost. */
const twoMembersName = (column: string) => `Two members name the column "${column}".`;

/**
 * Does a row hold a value in the column already? A new column costs the one lookup; a name every object
 * inherits (`constructor`) is looked for among the row's own.
 */
const hasValue = (values: Record<string, string>, column: string) => values[column] !== undefined && Object.hasOwn(values, column);
/** A row's values, or its rejection when two of its members named one column (with the values as read, for its key). */
const rowOf = (line: number, values: Record<string, string>, broken: string | undefined): FeedRow | RejectedFeedRow =>
  broken === undefined ? { line, values } : { line, reason: broken, asRead: values };

interface Frame {
  kind: 'object' | 'array';
  /** The member being read (objects) or the next index (arrays). */
  key: string;
  index: number;
}

/**
 * Streams the rows of a JSON feed, token by token: a root array of objects (rootIsArray), an array
 * of objects under a key of a root object (rootIsObject, the key's dotted path as rowXPath), or a
 * sequence of objects, one row each (oneRowPerObject: JSON Lines, or a single object without such an
 * array). Nested members become dotted column names (`price.amount`, `images.0`, `images.0.url`); every value
 * is text, null the empty string. `line` is the row's position (1-based); an element of the row array that
 * is not an object (a scalar, an array) is rejected at its position, and so is a row in which two members
 * name one column (`"a.b"` and `"a": {"b"}`, a key twice), as one value would be lost. A root object
 * followed by another object makes the feed JSON Lines even when the first holds an array of objects (a
 * member of its row then): until the first object's end tells, the rows of such an array wait, with the
 * object itself (MAX_ROOT_ROW_VALUES at most, past which they go out and the object can no longer be a
 * row). Otherwise only the row in hand is held. `source` is text as decodeFeedText hands it out: no chunk
 * ends in half a character (a lone surrogate would become U+FFFD as the parser encodes each chunk).
 */
export async function* jsonRows(source: AsyncIterable<string>, given: Partial<JsonShape>, onShape: (shape: JsonShape) => void): AsyncGenerator<FeedRowBatch> {
  const tokens = jsonParser({
    jsonStreaming: true,
    packKeys: true,
    packStrings: true,
    packNumbers: true,
    streamKeys: false,
    streamStrings: false,
    streamNumbers: false,
  });
  pipeline(Readable.from(source), tokens, () => undefined);

  const shape: JsonShape = { rootIsArray: false, rootIsObject: false, rowXPath: '', oneRowPerObject: false, ...given };
  const decided = Boolean(given.rootIsArray || given.rowXPath || given.oneRowPerObject);
  let announced = false;
  const announce = () => {
    if (!announced) onShape(shape);
    announced = true;
  };

  const stack: Frame[] = [];
  let row: Record<string, string> | undefined;
  let rowDepth = -1;
  /** Why the row in hand is to be rejected, once two of its members named one column. */
  let rowBroken: string | undefined;
  /**
   * The first root object, flattened whole (its row array too), while it may yet be a row itself: a lone
   * object without a row array, or the first of JSON Lines. Dropped once it holds more than
   * MAX_ROOT_ROW_VALUES values and rows (rootDropped).
   */
  let rootRow: Record<string, string> | undefined;
  let rootBroken: string | undefined;
  let rootValues = 0;
  let rootDropped = false;
  /**
   * Rows of the row array found in the first root object, held while rootRow is kept: if another object
   * follows the root, the feed is JSON Lines and that array was a member of its first row.
   */
  let held: (FeedRow | RejectedFeedRow)[] | undefined;
  let position = 0;
  let topLevelValues = 0;

  /** The member name of a value inside the row being built. */
  const memberName = (): string =>
    stack
      .slice(rowDepth)
      .map((frame) => (frame.kind === 'object' ? frame.key : String(frame.index)))
      .join('.');
  /** The member name of a value from the root (rootRow's). */
  const rootMemberName = (): string => stack.map((frame) => (frame.kind === 'object' ? frame.key : String(frame.index))).join('.');
  const advance = () => {
    const top = stack.at(-1);
    if (top?.kind === 'array') top.index++;
  };
  /** Is an object starting here a row? */
  const startsRow = (): boolean => {
    if (stack.length === 0) return shape.oneRowPerObject;
    const parent = stack.at(-1) as Frame;
    if (parent.kind !== 'array') return false;
    if (stack.length === 1) return shape.rootIsArray;
    if (shape.rowXPath) return stack.length >= 2 && keyPathOf(stack.slice(0, -1)) === shape.rowXPath;
    if (decided || !shape.rootIsObject || parent.index !== 0) return false;
    const path = keyPathOf(stack.slice(0, -1));
    if (path === undefined) return false;
    shape.rowXPath = path;
    // The root object may still be the first of JSON Lines (its rows then only a member of it): its rows wait.
    if (rootRow) held = [];
    return true;
  };
  /** The first root object stops being kept (too large to be a row): the rows held meanwhile, to go out. */
  const dropRoot = (): FeedRowBatch | undefined => {
    rootRow = undefined;
    rootDropped = true;
    const rows = held;
    held = undefined;
    return rows?.length ? rows : undefined;
  };
  const overRootLimit = () => rootValues + (held?.length ?? 0) > MAX_ROOT_ROW_VALUES;
  /** A row or rejection: the batch to hand out now, if any (none while the root's rows are held). */
  const out = (entry: FeedRow | RejectedFeedRow): FeedRowBatch | undefined => {
    if (!held) return [entry];
    held.push(entry);
    return overRootLimit() ? dropRoot() : undefined;
  };
  /** A scalar: the batch to hand out now, if any (a rejection, or the rows held when keeping the root object stopped here). */
  const scalar = (value: string): FeedRowBatch | undefined => {
    if (row) {
      const column = memberName();
      if (hasValue(row, column)) rowBroken ??= twoMembersName(column);
      row[column] = value;
    }
    if (rootRow) {
      const column = rootMemberName();
      if (hasValue(rootRow, column)) rootBroken ??= twoMembersName(column);
      rootRow[column] = value;
      rootValues++;
    }
    let rows: FeedRowBatch | undefined;
    if (!row && startsRowPosition(stack, shape)) {
      // A scalar where a row should be (an element of the row array) is a broken row, not a value.
      position++;
      rows = out({ line: position, reason: NOT_AN_OBJECT });
    } else if (rootRow && overRootLimit()) rows = dropRoot();
    advance();
    return rows;
  };
  /** The first root object is followed by another object: the feed is JSON Lines, the root its first row. */
  const firstOfLines = (): FeedRowBatch => {
    shape.rootIsObject = false;
    shape.rowXPath = '';
    shape.oneRowPerObject = true;
    const first: FeedRow | RejectedFeedRow = rootRow
      ? rowOf(1, rootRow, rootBroken)
      : { line: 1, reason: `The object has more than ${MAX_ROOT_ROW_VALUES} values: too many for a row.` };
    rootRow = undefined;
    held = undefined;
    rootDropped = false;
    position = 1;
    return [first];
  };

  try {
    for await (const token of tokens as AsyncIterable<Token>) {
      switch (token.name) {
        case 'startObject':
          if (stack.length === 0 && (held || (rootDropped && !shape.rowXPath))) {
            const first = firstOfLines();
            announce();
            yield first;
          }
          if (!row && startsRow()) {
            row = {};
            rowBroken = undefined;
            rowDepth = stack.length;
            position++;
          } else if (stack.length === 0) {
            if (topLevelValues > 0 && !decided) throw feedNotAFeed('The JSON feed holds more than one value but its first had rows of its own.');
            if (!decided) shape.rootIsObject = true;
            if (!shape.rowXPath) {
              rootRow = {};
              rootBroken = undefined;
            }
          }
          stack.push({ kind: 'object', key: '', index: 0 });
          break;
        case 'startArray':
          if (stack.length === 0) {
            if (topLevelValues > 0) throw feedNotAFeed('The JSON feed holds more than one array.');
            if (!decided) shape.rootIsArray = true;
            else if (!shape.rootIsArray) throw feedNotAFeed('The JSON feed is an array where its config expects an object.');
          } else if (!row && startsRowPosition(stack, shape)) {
            // An array where a row should be is a broken row; its values go nowhere (rootRow aside).
            position++;
            const rows = out({ line: position, reason: NOT_AN_OBJECT });
            if (rows) {
              announce();
              yield rows;
            }
          }
          stack.push({ kind: 'array', key: '', index: 0 });
          break;
        case 'keyValue':
          (stack.at(-1) as Frame).key = String(token.value);
          break;
        case 'endObject':
        case 'endArray':
          stack.pop();
          if (row && stack.length === rowDepth) {
            const done = row;
            row = undefined;
            rowDepth = -1;
            const rows = out(rowOf(position, done, rowBroken));
            if (rows) {
              announce();
              yield rows;
            }
          } else if (stack.length === 0) {
            topLevelValues++;
            if (rootRow && !shape.rowXPath && token.name === 'endObject') {
              // A root object without a row array is a row itself, and so is every object after it.
              shape.rootIsObject = false;
              shape.oneRowPerObject = true;
              position++;
              announce();
              yield [rowOf(position, rootRow, rootBroken)];
              rootRow = undefined;
            }
            // Kept while held rows wait for what follows the root.
            if (!held) rootRow = undefined;
          }
          advance();
          break;
        default: {
          const text = scalarText(token);
          if (text === undefined) break;
          if (stack.length === 0) throw feedNotAFeed('The JSON feed is a single value, not objects.');
          const rows = scalar(text);
          if (rows) {
            announce();
            yield rows;
          }
        }
      }
    }
  } catch (error) {
    // Only the parser's own complaints mean "not JSON"; a transport's failure (size cap, abort) passes as it is.
    if (error instanceof Error && /^Parser /.test(error.message)) throw feedNotAFeed(`The feed is not readable as JSON: ${error.message}`);
    throw error;
  } finally {
    tokens.destroy();
  }
  if (topLevelValues === 0 && position === 0) throw feedNotAFeed('The feed is empty: it holds no JSON value.');
  if (rootDropped && !shape.rowXPath && !shape.oneRowPerObject)
    throw feedNotAFeed(`The JSON feed is an object without an array of objects, and with more than ${MAX_ROOT_ROW_VALUES} values: too many for a row.`);
  announce();
  // Nothing followed the root object: the rows of its array are the feed's.
  if (held?.length) yield held;
}

function scalarText(token: Token): string | undefined {
  switch (token.name) {
    case 'stringValue':
    case 'numberValue':
      return String(token.value);
    case 'trueValue':
      return 'true';
    case 'falseValue':
      return 'false';
    case 'nullValue':
      return '';
    default:
      return undefined;
  }
}

function keyPathOf(frames: Frame[]): string | undefined {
  if (frames.some((frame) => frame.kind === 'array')) return undefined;
  return frames.map((frame) => frame.key).join('.');
}

/** Is a value here an element of the row array (where a row should be)? */
function startsRowPosition(stack: Frame[], shape: JsonShape): boolean {
  if (stack.at(-1)?.kind !== 'array') return false;
  if (stack.length === 1) return shape.rootIsArray;
  return shape.rowXPath !== '' && keyPathOf(stack.slice(0, -1)) === shape.rowXPath;
}
