import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { DaemonProcess, pollUntil } from './daemon-process';
import { MARIADB_INSTALL_DB, MARIADBD, requireTool } from './external-tools';
import { freePortBlock } from './processes';

export interface PrivateMariaDb {
  /** Root, no password, on this server's own port: what MYSQL_URL takes. */
  url: string;
  port: number;
  /** The daemon, to stop, start, kill, pause and resume by the pid the harness started. */
  server: DaemonProcess;
  /** Stops the server and removes its data directory. */
  close(): Promise<void>;
}

/**
 * A MariaDB server of the test's own: Debian's mariadbd on a data directory made by
 * mariadb-install-db under the temp dir, its own port and socket, root without a password on
 * loopback. Fault tests stop and kill it; the machine's own MariaDB is never touched.
 */
export async function startPrivateMariaDb(tag: string): Promise<PrivateMariaDb> {
  const mariadbd = requireTool(MARIADBD);
  const installDb = requireTool(MARIADB_INSTALL_DB);
  const directory = mkdtempSync(join(tmpdir(), `mariadb-${tag}-`));
  const datadir = join(directory, 'data');
  // mariadbd refuses to run as root unless told to; as anyone else it runs as that user.
  const asRoot = process.getuid?.() === 0 ? ['--user=root'] : [];
  const install = spawnSync(
    installDb,
    [
      '--no-defaults',
      `--datadir=${datadir}`,
      ...asRoot,
      // root@localhost and root@127.0.0.1 with an empty password, no anonymous or test accounts.
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
      '--skip-name-resolve',
    ],
    { encoding: 'utf8', timeout: 120_000 },
  );
  if (install.status !== 0) {
    rmSync(directory, { recursive: true, force: true });
    throw new Error(`${installDb} failed (${install.error?.message ?? `exit ${install.status}`}):\n${install.stdout}\n${install.stderr}`.slice(-4000));
  }
  const port = await freePortBlock(1);
  const url = `mysql://root@127.0.0.1:${port}`;
  const server = new DaemonProcess({
    name: 'mariadbd',
    command: mariadbd,
    args: [
      // Must come first: nothing from /etc/mysql, so the machine's configuration (its port, socket, data) never applies.
      '--no-defaults',
      `--datadir=${datadir}`,
      `--socket=${join(directory, 'mariadb.sock')}`,
      `--pid-file=${join(directory, 'mariadb.pid')}`,
      `--port=${port}`,
      '--bind-address=127.0.0.1',
      '--skip-name-resolve',
      ...asRoot,
      // Every service of a stack keeps two pools against it.
      '--max-connections=400',
      '--innodb-buffer-pool-size=64M',
    ],
    logFile: join(directory, 'mariadbd.log'),
    waitUntilReady: (daemon) =>
      pollUntil(async () => {
        const connection = await createConnection({ uri: url, connectTimeout: 1000 });
        try {
          await connection.query('SELECT 1');
          return true;
        } finally {
          await connection.end();
        }
      }, daemon),
  });
  try {
    await server.start();
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  return {
    url,
    port,
    server,
    close: async () => {
      await server.stop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
