import { createConnection } from 'mysql2/promise';
import { connect } from 'nats';
import { isProcessAlive } from './processes';
import { startPrivateMariaDb, type PrivateMariaDb } from './private-mariadb';
import { startPrivateNats, type PrivateNats } from './private-nats';

/** The machine's own servers, which the private ones must never be. */
const MACHINE_MYSQL_PORT = 3306;
const MACHINE_NATS_PORT = 4222;

async function selectOne(url: string): Promise<number> {
  const connection = await createConnection({ uri: url, connectTimeout: 2000 });
  try {
    const [rows] = await connection.query<import('mysql2').RowDataPacket[]>('SELECT 1 AS one');
    return Number(rows[0].one);
  } finally {
    await connection.end();
  }
}

describe('private MariaDB', () => {
  let db: PrivateMariaDb;
  beforeAll(async () => {
    db = await startPrivateMariaDb('harness');
  }, 120_000);
  afterAll(() => db?.close());

  it('serves root on its own port, keeps committed rows across a SIGKILL and a restart, and is down in between', async () => {
    expect(db.port).not.toBe(MACHINE_MYSQL_PORT);
    expect(await selectOne(db.url)).toBe(1);
    const connection = await createConnection(db.url);
    await connection.query('CREATE DATABASE harness_check');
    await connection.query('CREATE TABLE harness_check.rows_kept (id INT PRIMARY KEY) ENGINE=InnoDB');
    await connection.query('INSERT INTO harness_check.rows_kept VALUES (1), (2), (3)');
    await connection.end();

    const pid = db.server.pid;
    if (pid === undefined) throw new Error('the private MariaDB is not running');
    await db.server.kill();
    expect(isProcessAlive(pid)).toBe(false);
    expect(db.server.running).toBe(false);
    await expect(selectOne(db.url)).rejects.toMatchObject({ code: 'ECONNREFUSED' });

    await db.server.start();
    expect(db.server.pid).not.toBe(pid);
    const after = await createConnection(db.url);
    const [rows] = await after.query<import('mysql2').RowDataPacket[]>('SELECT COUNT(*) AS n FROM harness_check.rows_kept');
    await after.end();
    expect(Number(rows[0].n)).toBe(3);
  }, 120_000);

  it('pauses: connections open but nothing answers until it is resumed', async () => {
    db.server.pause();
    try {
      await expect(selectOne(db.url)).rejects.toBeDefined();
    } finally {
      db.server.resume();
    }
    expect(await selectOne(db.url)).toBe(1);
  }, 60_000);
});

describe('private NATS', () => {
  let nats: PrivateNats;
  beforeAll(async () => {
    nats = await startPrivateNats('harness');
  }, 60_000);
  afterAll(() => nats?.close());

  it('runs JetStream on its own port and keeps a stream across a SIGKILL and a restart', async () => {
    expect(nats.port).not.toBe(MACHINE_NATS_PORT);
    const nc = await connect({ servers: nats.url, reconnect: false });
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({ name: 'HARNESS', subjects: ['harness.>'] });
    await nc.jetstream().publish('harness.one', new TextEncoder().encode('kept'));
    await nc.close();

    await nats.server.kill();
    await expect(connect({ servers: nats.url, reconnect: false, timeout: 1000 })).rejects.toBeDefined();

    await nats.server.start();
    const again = await connect({ servers: nats.url, reconnect: false });
    const info = await (await again.jetstreamManager()).streams.info('HARNESS');
    await again.close();
    expect(info.state.messages).toBe(1);
  }, 60_000);
});
