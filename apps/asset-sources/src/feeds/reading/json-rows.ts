import { Readable, pipeline } from 'node:stream';
import { parser as jsonParser } from 'stream-json';
import type { FeedConfig, FeedRowBatch } from '../feed-reading';
import { feedNotAFeed } from './feed-errors';

interface Token {
  name: string;
  value?: string | null;
}

/** What a JSON feed's shape was read as: the config fields JSON uses. */
export type JsonShape = Pick<FeedConfig, 'rootIsArray' | 'rootIsObject' | 'rowXPath' | 'oneRowPerObject'>;

/** Values of a root object before its rows are found, kept in case it turns out to be the only row: bounded so a huge non-feed cannot fill memory. */
const MAX_ROOT_ROW_VALUES = 10_000;

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
 * array). Nested members become dotted column names (`price.amount`, `images.0`); every value is text,
 * null the empty string. `line` is the row's position (1-based). Only the row in hand is held.
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
  let rootRow: Record<string, string> | undefined;
  let rootValues = 0;
  let position = 0;
  let topLevelValues = 0;

  /** Object keys from the root to the current position, arrays not allowed between (a row array sits under keys only). */
  const keyPath = (): string | undefined => {
    const keys: string[] = [];
    for (let i = 0; i < stack.length; i++) {
      const frame = stack[i];
      if (frame.kind === 'array') return undefined;
      keys.push(frame.key);
    }
    return keys.join('.');
  };
  /** The member name of a value inside the row being built. */
  const memberName = (): string =>
    stack
      .slice(rowDepth)
      .map((frame) => (frame.kind === 'object' ? frame.key : String(frame.index)))
      .join('.');
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
    rootRow = undefined;
    return true;
  };
  const scalar = (value: string) => {
    if (row) row[memberName()] = value;
    else if (rootRow && !shape.rowXPath) {
      const name = keyPath() ?? stack.map((f) => (f.kind === 'object' ? f.key : String(f.index))).join('.');
      if (++rootValues > MAX_ROOT_ROW_VALUES) throw feedNotAFeed(`The JSON feed has no array of objects in its first ${MAX_ROOT_ROW_VALUES} values.`);
      rootRow[name] = value;
    }
    advance();
  };

  try {
    for await (const token of tokens as AsyncIterable<Token>) {
      switch (token.name) {
        case 'startObject':
          if (!row && startsRow()) {
            row = {};
            rowDepth = stack.length;
            position++;
          } else if (stack.length === 0) {
            if (topLevelValues > 0 && !decided) throw feedNotAFeed('The JSON feed holds more than one value but its first had rows of its own.');
            if (!decided) shape.rootIsObject = true;
            rootRow = {};
          }
          stack.push({ kind: 'object', key: '', index: 0 });
          break;
        case 'startArray':
          if (stack.length === 0) {
            if (topLevelValues > 0) throw feedNotAFeed('The JSON feed holds more than one array.');
            if (!decided) shape.rootIsArray = true;
            else if (!shape.rootIsArray) throw feedNotAFeed('The JSON feed is an array where its config expects an object.');
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
            announce();
            yield [{ line: position, values: done }];
          } else if (stack.length === 0) {
            topLevelValues++;
            if (rootRow && !shape.rowXPath && token.name === 'endObject') {
              // A root object without a row array is a row itself, and so is every object after it.
              shape.rootIsObject = false;
              shape.oneRowPerObject = true;
              position++;
              announce();
              yield [{ line: position, values: rootRow }];
            }
            rootRow = undefined;
          }
          advance();
          break;
        default: {
          const text = scalarText(token);
          if (text === undefined) break;
          if (stack.length === 0) throw feedNotAFeed('The JSON feed is a single value, not objects.');
          if (!row && startsRowPosition(stack, shape)) {
            position++;
            advance();
            yield [{ line: position, reason: 'The element is not an object.' }];
          } else scalar(text);
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
  announce();
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

/** A scalar where a row should be (an element of the row array) is a broken row, not a value. */
function startsRowPosition(stack: Frame[], shape: JsonShape): boolean {
  if (stack.length === 1) return shape.rootIsArray;
  return shape.rowXPath !== '' && keyPathOf(stack.slice(0, -1)) === shape.rowXPath;
}
