import { createConnection } from 'mysql2/promise';
import { assertIdentifier } from './mysql.identifiers';

export interface ServiceAccount {
  /** Admin connection (MYSQL_URL); used only here, then closed. */
  adminUrl: string;
  schema: string;
  user: string;
}

/**
 * Every host the service user is created for. '%' alone is not enough: an anonymous ''@'localhost'
 * account (present on many default installs) is more specific than 'user'@'%' and would win for
 * local connections, failing the login. Explicit localhost entries outrank it.
 */
const SERVICE_USER_HOSTS = ['%', 'localhost', '127.0.0.1'] as const;

/**
 * Creates the schema and the service's own user, idempotently, and grants that user its schema and
 * nothing else. The password is (re)set every time so that rotating MYSQL_SERVICE_PASSWORD only
 * takes a restart.
 */
export async function provisionSchemaAndUser({ adminUrl, schema, user, password }: ServiceAccount & { password: string }): Promise<void> {
  assertIdentifier('schema', schema);
  assertIdentifier('user', user);
  const admin = await createConnection(adminUrl);
  try {
    await admin.query(`CREATE DATABASE IF NOT EXISTS \`${schema}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    for (const host of SERVICE_USER_HOSTS) {
      // Placeholders are escaped client-side into quoted strings, which is what user@host accepts.
      await admin.query('CREATE USER IF NOT EXISTS ?@? IDENTIFIED BY ?', [user, host, password]);
      await admin.query('ALTER USER ?@? IDENTIFIED BY ?', [user, host, password]);
      await admin.query(`GRANT ALL PRIVILEGES ON \`${schema}\`.* TO ?@?`, [user, host]);
    }
  } finally {
    await admin.end();
  }
}

/** Drops a service's schema and user; for test clean-up and decommissioning, never called on start. */
export async function dropServiceDatabase({ adminUrl, schema, user }: ServiceAccount): Promise<void> {
  assertIdentifier('schema', schema);
  assertIdentifier('user', user);
  const admin = await createConnection(adminUrl);
  try {
    await admin.query(`DROP DATABASE IF EXISTS \`${schema}\``);
    for (const host of SERVICE_USER_HOSTS) {
      await admin.query('DROP USER IF EXISTS ?@?', [user, host]);
    }
  } finally {
    await admin.end();
  }
}
