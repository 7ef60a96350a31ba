import { randomBytes } from 'node:crypto';
import { createConnection, type Connection, type RowDataPacket } from 'mysql2/promise';
import type { Knex } from 'knex';
import { createLogger } from '@platform/logging';
import { schemaName } from './mysql.identifiers';
import type { Migration } from './mysql.migration-source';
import { dropServiceDatabase } from './mysql.provisioning';
import { migrateDown, openServiceDatabase, SchemaNotCurrentError, type OpenServiceDatabaseOptions, type ServiceDatabase } from './mysql.service-database';

jest.setTimeout(30_000);

const ADMIN_URL = process.env['MYSQL_URL'] ?? 'mysql://root@127.0.0.1:3306';
const PREFIX = `t_${randomBytes(4).toString('hex')}_`;
const logger = createLogger({ service: 'platform-mysql-test', level: 'silent' });

const createWidgets: Migration = {
  name: '20261122090000_create_widgets',
  up: async (knex) => {
    await knex.schema.createTable('widgets', (table) => {
      table.bigIncrements('id');
      table.string('name', 100).notNullable();
      table.boolean('active').notNullable().defaultTo(true);
      table.tinyint('priority').notNullable().defaultTo(0);
      table.bigInteger('big_number').nullable();
      table.dateTime('happened_at').nullable();
    });
  },
  down: async (knex) => {
    await knex.schema.dropTable('widgets');
  },
};

const createGadgets: Migration = {
  name: '20261122100000_create_gadgets',
  up: async (knex) => {
    await knex.schema.createTable('gadgets', (table) => {
      table.increments('id');
    });
  },
  down: async (knex) => {
    await knex.schema.dropTable('gadgets');
  },
};

/** Counts how often `up` ran, to tell "applied again" from "already applied". */
function counting(migration: Migration): Migration & { upRuns: number } {
  const counted = {
    ...migration,
    upRuns: 0,
    up: async (knex: Knex) => {
      counted.upRuns += 1;
      await migration.up(knex);
    },
  };
  return counted;
}

describe(openServiceDatabase.name, () => {
  const accounts: { schema: string; user: string }[] = [];
  const opened: ServiceDatabase[] = [];
  let admin: Connection;

  /** A fresh schema/user pair for one test, dropped in afterAll. */
  function newAccount(base: string) {
    const schema = schemaName(PREFIX, base);
    const account = { schema, user: schema };
    accounts.push(account);
    return account;
  }

  async function open(options: Partial<OpenServiceDatabaseOptions> & { schema: string; user: string }): Promise<ServiceDatabase> {
    const db = await openServiceDatabase({
      adminUrl: ADMIN_URL,
      password: 'first-password-123',
      migrations: [createWidgets],
      logger,
      pool: { min: 0, max: 3 },
      ...options,
    });
    opened.push(db);
    return db;
  }

  beforeAll(async () => {
    admin = await createConnection(ADMIN_URL);
  });

  afterAll(async () => {
    await Promise.all(opened.map((db) => db.close()));
    await admin.end();
    for (const account of accounts) await dropServiceDatabase({ adminUrl: ADMIN_URL, ...account });
  });

  it('creates the schema in utf8mb4_unicode_ci and the user for every host', async () => {
    const account = newAccount('created');
    await open(account);

    const [schemas] = await admin.query<RowDataPacket[]>(
      'SELECT DEFAULT_CHARACTER_SET_NAME AS charset, DEFAULT_COLLATION_NAME AS collation FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?',
      [account.schema],
    );
    expect(schemas).toEqual([{ charset: 'utf8mb4', collation: 'utf8mb4_unicode_ci' }]);

    const [users] = await admin.query<RowDataPacket[]>('SELECT Host AS host FROM mysql.user WHERE User = ? ORDER BY Host', [account.user]);
    expect(users.map((row) => row['host'])).toEqual(['%', '127.0.0.1', 'localhost']);

    // Tables made by migrations inherit the schema's collation rather than a connection default.
    const [tables] = await admin.query<RowDataPacket[]>(
      'SELECT TABLE_COLLATION AS collation FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?',
      [account.schema, 'widgets'],
    );
    expect(tables).toEqual([{ collation: 'utf8mb4_unicode_ci' }]);
  });

  it('connects as the service user, on its schema, in UTC', async () => {
    const account = newAccount('whoami');
    const db = await open(account);
    const [rows] = (await db.knex.raw('SELECT CURRENT_USER() AS who, DATABASE() AS db, @@session.time_zone AS tz')) as [
      { who: string; db: string; tz: string }[],
    ];
    expect(rows[0]?.who).toMatch(new RegExp(`^${account.user}@`));
    expect(rows[0]?.db).toBe(account.schema);
    expect(rows[0]?.tz).toBe('+00:00');
    expect(db.schema).toBe(account.schema);
  });

  it('reads booleans, big integers and datetimes back as written', async () => {
    const db = await open(newAccount('types'));
    const happenedAt = new Date('2026-11-22T09:30:15.000Z');
    await db.knex('widgets').insert({ name: 'w', active: false, priority: 7, big_number: '9007199254740993', happened_at: happenedAt });
    const row = await db.knex('widgets').first();
    expect(row).toMatchObject({ active: false, priority: 7, big_number: '9007199254740993' });
    expect(row.happened_at).toBeInstanceOf(Date);
    expect((row.happened_at as Date).toISOString()).toBe(happenedAt.toISOString());
    // Stored as UTC wall time, so other tools reading the column see the same instant.
    const [raw] = (await db.knex.raw("SELECT DATE_FORMAT(happened_at, '%Y-%m-%d %H:%i:%s') AS text FROM widgets")) as [{ text: string }[]];
    expect(raw[0]?.text).toBe('2026-11-22 09:30:15');
  });

  it('cannot see or touch another service’s schema', async () => {
    const mine = await open(newAccount('mine'));
    const theirsAccount = newAccount('theirs');
    await open(theirsAccount);

    await expect(mine.knex.raw(`SELECT * FROM \`${theirsAccount.schema}\`.widgets`)).rejects.toMatchObject({
      code: 'ER_TABLEACCESS_DENIED_ERROR',
    });
    await expect(mine.knex.raw(`INSERT INTO \`${theirsAccount.schema}\`.widgets (name) VALUES ('x')`)).rejects.toMatchObject({
      code: 'ER_TABLEACCESS_DENIED_ERROR',
    });
    await expect(mine.knex.raw(`USE \`${theirsAccount.schema}\``)).rejects.toMatchObject({ code: 'ER_DBACCESS_DENIED_ERROR' });
    await expect(mine.knex.raw(`CREATE DATABASE \`${PREFIX}sneaky\``)).rejects.toMatchObject({ code: 'ER_DBACCESS_DENIED_ERROR' });
  });

  it('runs migrations on open, applies nothing twice, and applies only what is new', async () => {
    const account = newAccount('migrate');
    const widgets = counting(createWidgets);
    const gadgets = counting(createGadgets);

    const first = await open({ ...account, migrations: [widgets] });
    await first.close();
    const second = await open({ ...account, migrations: [widgets] });
    await second.close();
    expect(widgets.upRuns).toBe(1);

    const third = await open({ ...account, migrations: [gadgets, widgets] });
    expect(widgets.upRuns).toBe(1);
    expect(gadgets.upRuns).toBe(1);
    expect(await third.knex.schema.hasTable('widgets')).toBe(true);
    expect(await third.knex.schema.hasTable('gadgets')).toBe(true);
    const applied = await third.knex('knex_migrations').orderBy('id').pluck('name');
    expect(applied).toEqual([createWidgets.name, createGadgets.name]);
  });

  it('with migrate: require-current, migrates nothing, refuses a schema its build is ahead of and accepts one ahead of it (a rollback)', async () => {
    const account = newAccount('replica');
    const widgets = counting(createWidgets);
    const gadgets = counting(createGadgets);
    // The release's migration run, of the previous build.
    await (await open({ ...account, migrations: [widgets] })).close();

    // A replica of the new build starts before the new build's migrations ran: it refuses, naming them.
    const refused = await open({ ...account, migrations: [widgets, gadgets], migrate: 'require-current' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(SchemaNotCurrentError);
    expect(refused).toMatchObject({ schema: account.schema, pending: [createGadgets.name] });
    const [tables] = await admin.query<RowDataPacket[]>('SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?', [
      account.schema,
      'gadgets',
    ]);
    expect(tables).toEqual([]);

    // Once the new build's run applied them, replicas start and apply nothing themselves.
    await (await open({ ...account, migrations: [widgets, gadgets] })).close();
    const replica = await open({ ...account, migrations: [widgets, gadgets], migrate: 'require-current' });
    await replica.knex('gadgets').insert({});
    expect([widgets.upRuns, gadgets.upRuns]).toEqual([1, 1]);

    // A rollback: the previous build's replicas start on the newer schema.
    const previousBuild = await open({ ...account, migrations: [widgets], migrate: 'require-current' });
    expect(await previousBuild.knex('widgets').count({ n: '*' })).toEqual([{ n: 0 }]);
  });

  it('migrates down one step, then all the way', async () => {
    const db = await open({ ...newAccount('down'), migrations: [createWidgets, createGadgets] });

    expect(await migrateDown(db)).toEqual([createGadgets.name]);
    expect(await db.knex.schema.hasTable('gadgets')).toBe(false);
    expect(await db.knex.schema.hasTable('widgets')).toBe(true);

    await db.knex.migrate.latest();
    expect(await migrateDown(db, { all: true })).toEqual([createGadgets.name, createWidgets.name]);
    expect(await db.knex.schema.hasTable('widgets')).toBe(false);
    expect(await db.knex('knex_migrations').count({ n: '*' })).toEqual([{ n: 0 }]);
  });

  it('rotates the password when opened again with a new one', async () => {
    const account = newAccount('rotate');
    const before = await open({ ...account, password: 'old-password-123' });
    await before.close();

    const after = await open({ ...account, password: 'new-password-456' });
    await expect(after.ping()).resolves.toBeUndefined();

    const { hostname, port } = new URL(ADMIN_URL);
    await expect(
      createConnection({ host: hostname, port: Number(port || 3306), user: account.user, password: 'old-password-123', database: account.schema }),
    ).rejects.toMatchObject({ code: 'ER_ACCESS_DENIED_ERROR' });
  });

  it('answers ping while open and rejects after close', async () => {
    const db = await open(newAccount('ping'));
    await expect(db.ping()).resolves.toBeUndefined();
    await db.close();
    await expect(db.ping()).rejects.toThrow();
  });

  it('leaves no pool behind when a migration fails, and reports the failure', async () => {
    const account = newAccount('broken');
    const broken: Migration = {
      name: '20261122090000_broken',
      up: async (knex) => {
        await knex.raw('SELECT * FROM table_that_does_not_exist');
      },
      down: async () => undefined,
    };
    await expect(openServiceDatabase({ adminUrl: ADMIN_URL, ...account, password: 'p-123456789012', migrations: [broken], logger })).rejects.toMatchObject({
      code: 'ER_NO_SUCH_TABLE',
    });
  });

  it('refuses unsafe names before running any SQL', async () => {
    const base = { adminUrl: ADMIN_URL, password: 'p-123456789012', migrations: [], logger };
    await expect(openServiceDatabase({ ...base, schema: 'x`; DROP DATABASE mysql; --', user: 'ok_user' })).rejects.toThrow(/Invalid MySQL schema name/);
    await expect(openServiceDatabase({ ...base, schema: `${PREFIX}ok`, user: "bob'@'%" })).rejects.toThrow(/Invalid MySQL user name/);
    const [rows] = await admin.query<RowDataPacket[]>('SELECT 1 FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [`${PREFIX}ok`]);
    expect(rows).toHaveLength(0);
  });
});
