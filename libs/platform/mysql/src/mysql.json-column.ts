/**
 * JSON columns. The service pools run with mysql2's `jsonStrings: true`, so a JSON column reads as
 * its text: code that only hands the value on (to gRPC, to a response) passes the text through
 * unparsed, and code that needs the value parses it here.
 */

/**
 * The value stored in a JSON column, from the text the driver returns. SQL NULL is null. A value
 * that is not a string was parsed by a connection without jsonStrings and is returned as it is.
 */
export function readJsonColumn<T = unknown>(column: unknown): T | null {
  if (column === null || column === undefined) return null;
  return (typeof column === 'string' ? JSON.parse(column) : column) as T;
}

/**
 * The text to write into a JSON column. null and undefined become SQL NULL rather than the JSON
 * literal `null`, so "no value" has one representation that `IS NULL` finds.
 */
export function writeJsonColumn(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const text = JSON.stringify(value) as string | undefined;
  // A function or symbol has no JSON form; storing nothing in its place would lose it silently.
  if (text === undefined) throw new TypeError(`A ${typeof value} cannot be stored in a JSON column`);
  return text;
}
