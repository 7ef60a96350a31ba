import { Readable } from 'node:stream';
import type { Pool, PoolConnection, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { escapeId } from 'mysql2';
import type { Logger } from '@platform/logging';

/** What a value of `insertRows` and `loadRows` may be (dates would need the session's time zone: bind those with `execute`). */
export type BulkValue = string | number | null;

/** The characters LOAD DATA's default `ESCAPED BY '\\'` must see escaped inside a tab-separated field. */
const NEEDS_ESCAPE = /[\\\t\n\r\0]/;
const ESCAPED: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\0': '\\0' };

/** A value as a field of LOAD DATA's tab-separated text: `\N` for NULL, a finite number as is, a string escaped. */
export function loadDataField(value: BulkValue): string {
  if (value === null) return '\\N';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`loadRows: ${value} is not a number SQL can store.`);
    return String(value);
  }
  return NEEDS_ESCAPE.test(value) ? value.replace(/[\\\t\n\r\0]/g, (c) => ESCAPED[c] as string) : value;
}

const UNESCAPED: Record<string, string> = { '\\': '\\', t: '\t', n: '\n', r: '\r', '0': '\0' };

/** Bytes a LoadDataRows starts with unless told; it doubles as rows come. */
const INITIAL_BYTES = 64 * 1024;

/**
 * Rows as LOAD DATA's text, encoded as they come into one growing buffer: fields separated by tabs,
 * rows ended by newlines. Each row's text dies young; a batch keeps no string or array per row alive
 * until it is sent (collections were the larger cost of a feed's ingestion when it did).
 */
export class LoadDataRows {
  private buffer: Buffer;
  private used = 0;
  private rows = 0;

  /**
   * `room`: the bytes a caller's batches usually reach, allocated at once (each doubling copies what
   * was written), or a buffer to fill again that an earlier batch gave back (`release`): its memory is
   * already mapped, where a new one of megabytes is fresh pages the first write faults in one by one.
   */
  constructor(room: number | Buffer = INITIAL_BYTES) {
    this.buffer = typeof room === 'number' ? Buffer.allocUnsafe(room) : room;
  }

  /** The buffer, for the next batch once this one's load is done; this batch holds no text after it. */
  release(): Buffer {
    const buffer = this.buffer;
    this.buffer = Buffer.alloc(0);
    this.used = 0;
    this.rows = 0;
    return buffer;
  }

  static of(rows: readonly (readonly BulkValue[])[]): LoadDataRows {
    const data = new LoadDataRows();
    for (const row of rows) data.add(row);
    return data;
  }

  add(values: readonly BulkValue[]): void {
    let line = loadDataField(values[0] as BulkValue);
    for (let i = 1; i < values.length; i++) line += `\t${loadDataField(values[i] as BulkValue)}`;
    line += '\n';
    // A UTF-16 unit takes at most 3 bytes of UTF-8.
    const room = this.used + line.length * 3;
    if (room > this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(room, this.buffer.length * 2));
      this.buffer.copy(grown, 0, 0, this.used);
      this.buffer = grown;
    }
    this.used += this.buffer.write(line, this.used);
    this.rows++;
  }

  get count(): number {
    return this.rows;
  }

  /** Bytes of text so far. */
  get length(): number {
    return this.used;
  }

  toBuffer(): Buffer {
    return this.buffer.subarray(0, this.used);
  }

  /** The rows read back from the text (for an INSERT where LOAD DATA is refused). */
  toRows(): BulkValue[][] {
    if (this.rows === 0) return [];
    return this.buffer
      .toString('utf8', 0, this.used - 1)
      .split('\n')
      .map((line) => line.split('\t').map((field) => (field === '\\N' ? null : field.replace(/\\(.)/g, (_, c: string) => UNESCAPED[c] ?? c))));
  }
}

/** The server refuses LOCAL INFILE: "command not allowed" (1148), MySQL 8's "loading local data is disabled" (3948), MariaDB's "local infile capability disabled" (4166). */
const LOCAL_INFILE_REFUSED = new Set([1148, 3948, 4166]);

/**
 * Bulk rows through `LOAD DATA LOCAL INFILE`, fed from memory (no file is touched): the server reads
 * tab-separated text instead of parsing a statement of escaped literals, and nothing builds that
 * statement, which made it about twice as cheap per row as a multi-row INSERT for a feed's rows
 * (bench/README.md, feed-ingest). LOCAL turns errors into warnings (the server cannot stop the
 * client's file), so each load runs in a transaction of its own that is rolled back when the load
 * warned: the rows arrive all as written, or none do, as with INSERT. A server that refuses LOCAL
 * INFILE (MySQL 8 ships with `local_infile` off) gets the same rows as one INSERT instead, decided
 * once per pool.
 */
export function createRowLoader(
  pool: Pool,
  insertRows: (table: string, columns: readonly string[], rows: readonly (readonly BulkValue[])[]) => Promise<number>,
  logger: Logger,
) {
  let refused = false;
  return async function loadRows(table: string, columns: readonly string[], rows: LoadDataRows | readonly (readonly BulkValue[])[]): Promise<number> {
    const data = rows instanceof LoadDataRows ? rows : LoadDataRows.of(rows);
    if (data.count === 0) return 0;
    if (refused) return insertRows(table, columns, data.toRows());
    const connection = await pool.getConnection();
    try {
      const loaded = await loadInTransaction(connection, table, columns, data.toBuffer());
      if (loaded === 'refused') {
        refused = true;
        logger.warn({ table }, 'the database refuses LOAD DATA LOCAL INFILE (local_infile is off): bulk rows go as INSERTs');
        return insertRows(table, columns, data.toRows());
      }
      return loaded;
    } finally {
      connection.release();
    }
  };
}

async function loadInTransaction(connection: PoolConnection, table: string, columns: readonly string[], text: Buffer): Promise<number | 'refused'> {
  await connection.query('START TRANSACTION');
  try {
    const [result] = await connection.query<ResultSetHeader>({
      sql:
        `LOAD DATA LOCAL INFILE 'rows' INTO TABLE ${escapeId(table)} CHARACTER SET utf8mb4 ` +
        `FIELDS TERMINATED BY '\\t' ESCAPED BY '\\\\' LINES TERMINATED BY '\\n' (${columns.map((c) => escapeId(c)).join(', ')})`,
      infileStreamFactory: () => Readable.from([text]),
    });
    if (result.warningStatus > 0) {
      const [warnings] = await connection.query<RowDataPacket[]>('SHOW WARNINGS LIMIT 3');
      throw new Error(`loadRows into ${table}: ${result.warningStatus} warning(s), nothing loaded: ${warnings.map((w) => String(w.Message)).join('; ')}`);
    }
    await connection.query('COMMIT');
    return result.affectedRows;
  } catch (error) {
    await connection.query('ROLLBACK').catch(() => undefined);
    if (LOCAL_INFILE_REFUSED.has((error as { errno?: number }).errno ?? 0)) return 'refused';
    throw error;
  }
}
