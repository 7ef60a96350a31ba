import type { Knex } from 'knex';

/** Which slice of a list a caller asked for; already defaulted and capped (see effectivePage). */
export interface PageWindow {
  offset: number;
  limit: number;
}

/** One slice of a list, with how many items the whole list holds, so clients can page to the end. */
export interface Page<T> {
  items: T[];
  total: number;
}

/** What a `SELECT COUNT(*) AS total` returns; the driver gives a string past 2^53 (supportBigNumbers). */
export interface CountRow {
  total: number | string | bigint;
}

/**
 * Runs the page query and the count query at once (two pool connections, one round trip of
 * latency) and maps the rows. Both queries must filter the same rows: the count is what makes
 * `total` consistent with the items a client pages through.
 */
export async function listWithTotal<Row, Item>(
  query: { rows: PromiseLike<readonly Row[]>; count: PromiseLike<readonly CountRow[]> },
  toItem: (row: Row) => Item,
): Promise<Page<Item>> {
  const [rows, counted] = await Promise.all([query.rows, query.count]);
  return { items: rows.map((row) => toItem(row)), total: Number(counted[0]?.total ?? 0) };
}

/**
 * The knex flavour: `query` is the filtered list (select, joins, where, order by); the page is its
 * window and the count is the same query without select list and order. Not for grouped or
 * DISTINCT queries, whose count is not COUNT(*) over the same FROM/WHERE.
 */
export function listWithTotalQuery<Row, Item>(query: Knex.QueryBuilder, window: PageWindow, toItem: (row: Row) => Item): Promise<Page<Item>> {
  return listWithTotal(
    {
      rows: query.clone().offset(window.offset).limit(window.limit) as unknown as Promise<Row[]>,
      count: query.clone().clearSelect().clearOrder().count({ total: '*' }) as unknown as Promise<CountRow[]>,
    },
    toItem,
  );
}

/** The column a one-statement page query carries its total in (see listWithTotalColumn). */
export const TOTAL_COLUMN = 'total_count';

/**
 * One round trip instead of two: the page query selects the total as a column, from an
 * uncorrelated `(SELECT COUNT(*) ...) AS total_count` subquery that MariaDB evaluates once per
 * statement. Only a page with no rows (past the end, or an empty list) has no row to carry it;
 * then, unless the page starts at 0, the separate count runs.
 */
export async function listWithTotalColumn<Row extends { [TOTAL_COLUMN]: number | string | bigint }, Item>(
  query: { rows: PromiseLike<readonly Row[]>; countWhenEmpty: () => PromiseLike<readonly CountRow[]> },
  window: PageWindow,
  toItem: (row: Row) => Item,
): Promise<Page<Item>> {
  const rows = await query.rows;
  if (rows.length > 0) return { items: rows.map((row) => toItem(row)), total: Number(rows[0][TOTAL_COLUMN]) };
  if (window.offset === 0) return { items: [], total: 0 };
  const counted = await query.countWhenEmpty();
  return { items: [], total: Number(counted[0]?.total ?? 0) };
}
