import { randomBytes } from 'node:crypto';
import { createLogger } from '@platform/logging';
import { isDuplicateKey } from './mysql.duplicate-key';
import { schemaName } from './mysql.identifiers';
import { readJsonColumn, writeJsonColumn } from './mysql.json-column';
import type { Migration } from './mysql.migration-source';
import { listWithTotal, listWithTotalColumn, listWithTotalQuery, TOTAL_COLUMN } from './mysql.page';
import { dropServiceDatabase } from './mysql.provisioning';
import { openServiceDatabase, type ServiceDatabase } from './mysql.service-database';
import { createRowLoader, LoadDataRows } from './mysql.load-rows';
import { createPool } from 'mysql2/promise';

jest.setTimeout(30_000);

const ADMIN_URL = process.env['MYSQL_URL'] ?? 'mysql://root@127.0.0.1:3306';
const SCHEMA = schemaName(`t_${randomBytes(4).toString('hex')}_`, 'exec');
const logger = createLogger({ service: 'platform-mysql-test', level: 'silent' });

const createItems: Migration = {
  name: '20261122090000_create_items',
  up: async (knex) => {
    await knex.schema.createTable('items', (t) => {
      t.bigIncrements('id');
      t.string('owner', 20).notNullable();
      t.string('name', 50).notNullable();
      t.boolean('active').notNullable().defaultTo(true);
      t.json('settings').nullable();
      t.datetime('created_at', { precision: 3 }).nullable();
      t.unique(['owner', 'name'], { indexName: 'uq_items_owner_name' });
    });
  },
  down: async (knex) => {
    await knex.schema.dropTable('items');
  },
};

interface ItemRow {
  id: number;
  owner: string;
  name: string;
  active: boolean;
  settings: string | null;
  created_at: Date | null;
}

const LIST_SQL = 'SELECT id, owner, name, active, settings, created_at FROM items WHERE owner = ? ORDER BY id LIMIT ? OFFSET ?';
const COUNT_SQL = 'SELECT COUNT(*) AS total FROM items WHERE owner = ?';
const SESSION_COUNTERS_SQL =
  "SELECT VARIABLE_NAME AS name, VARIABLE_VALUE AS value FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME IN ('COM_STMT_PREPARE', 'COM_STMT_EXECUTE')";

describe('ServiceDatabase.execute and the list, duplicate-key and JSON helpers (real MariaDB)', () => {
  let db: ServiceDatabase;
  let single: ServiceDatabase;

  beforeAll(async () => {
    const options = { adminUrl: ADMIN_URL, schema: SCHEMA, user: SCHEMA, password: 'exec-password-123', logger, migrations: [createItems] };
    db = await openServiceDatabase(options);
    // One connection, so that session counters describe every statement this test sends.
    single = await openServiceDatabase({ ...options, executePool: { max: 1 } });
    await db
      .knex('items')
      .insert([
        ...Array.from({ length: 7 }, (_, i) => ({ owner: 'ann', name: `item ${i + 1}`, active: i % 2 === 0, settings: writeJsonColumn({ rank: i + 1 }) })),
        { owner: 'bob', name: 'item 1', active: true, settings: null, created_at: new Date('2026-11-22T09:30:15.250Z') },
      ]);
  });

  afterAll(async () => {
    await Promise.all([db?.close(), single?.close()]);
    await dropServiceDatabase({ adminUrl: ADMIN_URL, schema: SCHEMA, user: SCHEMA });
  });

  it('reads rows with the knex pool’s conversions: booleans, JSON as text, UTC datetimes', async () => {
    const [bob] = await db.execute<ItemRow>('SELECT id, owner, name, active, settings, created_at FROM items WHERE owner = ?', ['bob']);
    expect(bob).toMatchObject({ owner: 'bob', name: 'item 1', active: true, settings: null });
    expect(bob?.created_at?.toISOString()).toBe('2026-11-22T09:30:15.250Z');
    const [first] = await db.execute<ItemRow>(LIST_SQL, ['ann', 1, 0]);
    expect(first?.active).toBe(true);
    expect(typeof first?.settings).toBe('string');
    expect(readJsonColumn(first?.settings)).toEqual({ rank: 1 });
    const [zone] = await db.execute<{ tz: string }>('SELECT @@session.time_zone AS tz');
    expect(zone?.tz).toBe('+00:00');
  });

  it('inserts many rows in one statement, every value arriving as written: quotes, backslashes, ?, %, Unicode, NULL', async () => {
    const awkward = [`it's`, 'back\\slash \\n', 'what? 100% ?', '{"json": "\\"quoted\\""}', 'Crème brûlée 🍮', 'line\nbreak\ttab\u0000nul'];
    const inserted = await db.insertRows(
      'items',
      ['owner', 'name', 'settings'],
      awkward.map((name, i) => ['bulk', name, i === 0 ? null : `{"i": ${i}}`]),
    );
    expect(inserted).toBe(awkward.length);
    const rows = await db.execute<ItemRow>("SELECT name, settings FROM items WHERE owner = 'bulk' ORDER BY id");
    expect(rows.map((r) => r.name)).toEqual(awkward);
    expect(rows.map((r) => r.settings)).toEqual([null, ...awkward.slice(1).map((_, i) => `{"i": ${i + 1}}`)]);
    expect(await db.insertRows('items', ['owner', 'name'], [])).toBe(0);
    await expect(db.insertRows('items', ['owner', 'name'], [['bulk', Number.NaN]])).rejects.toThrow(/not a number SQL can store/);
  });

  it('loads many rows through LOAD DATA LOCAL INFILE, every value arriving as written, all or none', async () => {
    const awkward = [
      `it's`,
      'back\\slash \\n \\N',
      'what? 100% ?',
      '{"json": "\\"quoted\\""}',
      'Crème brûlée 🍮',
      'line\nbreak\ttab\u0000nul\rcr',
      'NULL',
      '\\',
    ];
    const loaded = await db.loadRows(
      'items',
      ['owner', 'name', 'settings'],
      awkward.map((name, i) => ['load', name, i === 0 ? null : `{"i": ${i}}`]),
    );
    expect(loaded).toBe(awkward.length);
    const rows = await db.execute<ItemRow>("SELECT name, settings FROM items WHERE owner = 'load' ORDER BY id");
    expect(rows.map((r) => r.name)).toEqual(awkward);
    expect(rows.map((r) => r.settings)).toEqual([null, ...awkward.slice(1).map((_, i) => `{"i": ${i + 1}}`)]);
    expect(await db.loadRows('items', ['owner', 'name'], [])).toBe(0);
    // LOCAL turns a duplicate key or a value too long into a warning: the load is refused whole.
    const count = async () => (await db.execute<{ n: number }>("SELECT COUNT(*) AS n FROM items WHERE owner = 'load'"))[0]?.n;
    await expect(
      db.loadRows(
        'items',
        ['owner', 'name'],
        [
          ['load', 'fresh one'],
          ['load', "it's"],
        ],
      ),
    ).rejects.toThrow(/warning.*nothing loaded.*Duplicate/);
    await expect(
      db.loadRows(
        'items',
        ['owner', 'name'],
        [
          ['load', 'fresh two'],
          ['load', 'x'.repeat(51)],
        ],
      ),
    ).rejects.toThrow(/warning.*nothing loaded/);
    expect(await count()).toBe(awkward.length);
    await expect(db.loadRows('items', ['owner', 'name'], [['load', Number.POSITIVE_INFINITY]])).rejects.toThrow(/not a number SQL can store/);
  });

  it('fills a buffer an earlier batch released, loading only the rows written since', async () => {
    const first = new LoadDataRows(16);
    first.add(['reuse', 'a first batch longer than its 16 bytes']);
    expect(await db.loadRows('items', ['owner', 'name'], first)).toBe(1);
    const buffer = first.release();
    expect(first.count).toBe(0);
    const second = new LoadDataRows(buffer);
    second.add(['reuse', 'second']);
    expect(second.toBuffer().buffer).toBe(buffer.buffer);
    expect(await db.loadRows('items', ['owner', 'name'], second)).toBe(1);
    const rows = await db.execute<ItemRow>("SELECT name FROM items WHERE owner = 'reuse' ORDER BY id");
    expect(rows.map((r) => r.name)).toEqual(['a first batch longer than its 16 bytes', 'second']);
  });

  it('loads rows as one INSERT when the server refuses LOCAL INFILE', async () => {
    // A client that does not offer LOCAL INFILE is refused as a server with local_infile off refuses it.
    const pool = createPool({
      host: new URL(ADMIN_URL).hostname,
      port: Number(new URL(ADMIN_URL).port || 3306),
      user: SCHEMA,
      password: 'exec-password-123',
      database: SCHEMA,
      flags: ['-LOCAL_FILES'],
    });
    const inserted: number[] = [];
    const load = createRowLoader(
      pool,
      async (table, columns, rows) => {
        inserted.push(rows.length);
        return db.insertRows(table, columns, rows);
      },
      logger,
    );
    try {
      // The text built for LOAD DATA is read back into the same values.
      const awkward = ['a', 'back\\slash \\N', 'line\nbreak\ttab\u0000nul\rcr', 'NULL', '\\'];
      const loaded = await load(
        'items',
        ['owner', 'name', 'settings'],
        awkward.map((name, i) => ['refused', name, i === 0 ? null : `{"i": ${i}}`]),
      );
      expect(loaded).toBe(5);
      expect(await load('items', ['owner', 'name'], LoadDataRows.of([['refused', 'c']]))).toBe(1);
      expect(inserted).toEqual([5, 1]);
      const rows = await db.execute<ItemRow>("SELECT name, settings FROM items WHERE owner = 'refused' ORDER BY id");
      expect(rows.map((r) => r.name)).toEqual([...awkward, 'c']);
      expect(rows.map((r) => r.settings)).toEqual([null, ...awkward.slice(1).map((_, i) => `{"i": ${i + 1}}`), null]);
    } finally {
      await pool.end();
    }
  });

  it('prepares a statement once per connection and then only executes it', async () => {
    const counters = async () => {
      const rows = await single.execute<{ name: string; value: string }>(SESSION_COUNTERS_SQL);
      const value = (name: string) => Number(rows.find((row) => row.name === name)?.value);
      return { prepared: value('COM_STMT_PREPARE'), executed: value('COM_STMT_EXECUTE') };
    };
    await single.execute(LIST_SQL, ['ann', 2, 0]);
    const before = await counters();
    for (let i = 0; i < 10; i++) await single.execute(LIST_SQL, ['ann', 2, i % 7]);
    const after = await counters();
    expect(after.prepared - before.prepared).toBe(0);
    // The ten list calls and the second counter read itself.
    expect(after.executed - before.executed).toBe(11);
  });

  it('pages with the total through execute, including past the end', async () => {
    const page = (offset: number, limit: number) =>
      listWithTotal({ rows: db.execute<ItemRow>(LIST_SQL, ['ann', limit, offset]), count: db.execute(COUNT_SQL, ['ann']) }, (row) => row.name);
    expect(await page(0, 3)).toEqual({ items: ['item 1', 'item 2', 'item 3'], total: 7 });
    expect(await page(6, 3)).toEqual({ items: ['item 7'], total: 7 });
    expect(await page(50, 3)).toEqual({ items: [], total: 7 });
  });

  it('pages with the total carried as a column, counting separately only past the end', async () => {
    const withTotal = `SELECT name, (${COUNT_SQL}) AS ${TOTAL_COLUMN} FROM items WHERE owner = ? ORDER BY id LIMIT ? OFFSET ?`;
    let separateCounts = 0;
    const page = (owner: string, offset: number, limit: number) =>
      listWithTotalColumn(
        {
          rows: db.execute<{ name: string; [TOTAL_COLUMN]: number }>(withTotal, [owner, owner, limit, offset]),
          countWhenEmpty: () => {
            separateCounts += 1;
            return db.execute(COUNT_SQL, [owner]);
          },
        },
        { offset, limit },
        (row) => row.name,
      );
    expect(await page('ann', 0, 3)).toEqual({ items: ['item 1', 'item 2', 'item 3'], total: 7 });
    expect(await page('ann', 6, 3)).toEqual({ items: ['item 7'], total: 7 });
    expect(separateCounts).toBe(0);
    expect(await page('ann', 50, 3)).toEqual({ items: [], total: 7 });
    expect(separateCounts).toBe(1);
    expect(await page('nobody', 0, 3)).toEqual({ items: [], total: 0 });
    expect(separateCounts).toBe(1);
  });

  it('pages a knex query with the total of the same filter', async () => {
    const active = db.knex('items').select('name').where({ owner: 'ann', active: true }).orderBy('id', 'desc');
    expect(await listWithTotalQuery<{ name: string }, string>(active, { offset: 1, limit: 2 }, (row) => row.name)).toEqual({
      items: ['item 5', 'item 3'],
      total: 4,
    });
  });

  it('recognises a duplicate on the named unique index, from knex and from execute', async () => {
    const fromKnex = await db
      .knex('items')
      .insert({ owner: 'ann', name: 'item 1' })
      .catch((e: unknown) => e);
    expect(isDuplicateKey(fromKnex, 'uq_items_owner_name')).toBe(true);
    expect(isDuplicateKey(fromKnex, 'PRIMARY')).toBe(false);
    const fromExecute = await db.execute('INSERT INTO items (id, owner, name) VALUES (?, ?, ?)', [1, 'zed', 'new']).catch((e: unknown) => e);
    expect(isDuplicateKey(fromExecute, 'PRIMARY')).toBe(true);
  });

  it('stores JSON text as given and reads the same value back', async () => {
    const value = { list: [1, 'two', { three: null }], unicode: 'ü€' };
    await db.knex('items').insert({ owner: 'json', name: 'x', settings: writeJsonColumn(value) });
    const [row] = await db.execute<ItemRow>('SELECT settings FROM items WHERE owner = ?', ['json']);
    expect(readJsonColumn(row?.settings)).toEqual(value);
    const [nulls] = await db.execute<{ n: number }>('SELECT COUNT(*) AS n FROM items WHERE settings IS NULL AND owner = ?', ['bob']);
    expect(nulls?.n).toBe(1);
  });

  it('refuses execute once closed', async () => {
    const other = await openServiceDatabase({
      adminUrl: ADMIN_URL,
      schema: SCHEMA,
      user: SCHEMA,
      password: 'exec-password-123',
      logger,
      migrations: [createItems],
    });
    await expect(other.execute('SELECT 1 AS one')).resolves.toEqual([{ one: 1 }]);
    await other.close();
    await expect(other.execute('SELECT 1 AS one')).rejects.toThrow(/closed/i);
  });
});
