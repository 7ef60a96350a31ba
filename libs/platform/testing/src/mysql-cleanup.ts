import { createConnection } from 'mysql2/promise';

/** Drops every schema and user a test run created under its prefix. */
export async function dropPrefixedSchemas(prefix: string, adminUrl = process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306'): Promise<void> {
  if (!/^t[0-9a-f]{8}_[a-z0-9]*_$/.test(prefix)) throw new Error(`Refusing to drop schemas for unexpected prefix ${prefix}`);
  const connection = await createConnection(adminUrl);
  try {
    const [schemas] = await connection.query<import('mysql2').RowDataPacket[]>(
      'SELECT schema_name AS name FROM information_schema.schemata WHERE schema_name LIKE ?',
      [`${prefix}%`],
    );
    for (const { name } of schemas) await connection.query(`DROP DATABASE \`${name}\``);
    const [users] = await connection.query<import('mysql2').RowDataPacket[]>('SELECT User AS user, Host AS host FROM mysql.user WHERE User LIKE ?', [
      `${prefix}%`,
    ]);
    for (const { user, host } of users) await connection.query('DROP USER ?@?', [user, host]);
  } finally {
    await connection.end();
  }
}
