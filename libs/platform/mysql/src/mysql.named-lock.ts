import type { Knex } from 'knex';

interface CallbackConnection {
  query(sql: string, values: unknown[], callback: (error: Error | null, rows: unknown) => void): void;
}

const query = (connection: CallbackConnection, sql: string, values: unknown[]) =>
  new Promise<unknown>((resolve, reject) => connection.query(sql, values, (error, rows) => (error ? reject(error) : resolve(rows))));

// MariaDB takes lock names of up to 64 characters.
const namedLock = (schema: string, name: string) => `${schema}.${name}`.slice(0, 64);

/**
 * Runs `work` while holding the server's named lock `<schema>.<name>` (GET_LOCK), or answers
 * `{ acquired: false }` at once when another session holds it. The lock belongs to one pooled
 * connection kept for the whole run, so it is held across every replica of a service and released
 * when the work ends or, if the process dies, when the server drops its connection: nothing is left
 * locked by a crash. The name is prefixed with the schema because lock names are server-wide.
 */
export async function withNamedLock<T>(
  knex: Knex,
  schema: string,
  name: string,
  work: () => Promise<T>,
): Promise<{ acquired: true; result: T } | { acquired: false }> {
  const lockName = namedLock(schema, name);
  const connection = (await knex.client.acquireConnection()) as CallbackConnection;
  try {
    const [row] = (await query(connection, 'SELECT GET_LOCK(?, 0) AS got', [lockName])) as { got: number | null }[];
    if (Number(row?.got) !== 1) return { acquired: false };
    try {
      return { acquired: true, result: await work() };
    } finally {
      await query(connection, 'SELECT RELEASE_LOCK(?)', [lockName]);
    }
  } finally {
    await knex.client.releaseConnection(connection);
  }
}

/** Whether no session holds the named lock `<schema>.<name>` now (IS_FREE_LOCK): a hint for when to try withNamedLock again, not a hold. */
export async function isNamedLockFree(knex: Knex, schema: string, name: string): Promise<boolean> {
  const [rows] = (await knex.raw('SELECT IS_FREE_LOCK(?) AS free', [namedLock(schema, name)])) as [{ free: number | null }[]];
  return Number(rows[0]?.free) === 1;
}
