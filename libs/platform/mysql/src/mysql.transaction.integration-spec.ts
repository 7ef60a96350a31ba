import { randomBytes } from 'node:crypto';
import { createLogger } from '@platform/logging';
import { schemaName } from './mysql.identifiers';
import { dropServiceDatabase } from './mysql.provisioning';
import { openServiceDatabase, type ServiceDatabase } from './mysql.service-database';
import { withTransaction } from './mysql.transaction';

jest.setTimeout(30_000);

const ADMIN_URL = process.env['MYSQL_URL'] ?? 'mysql://root@127.0.0.1:3306';
const SCHEMA = schemaName(`t_${randomBytes(4).toString('hex')}_`, 'txn');
const logger = createLogger({ service: 'platform-mysql-test', level: 'silent' });

/** Resolves for everyone once `parties` callers have arrived. */
function barrier(parties: number): () => Promise<void> {
  let arrived = 0;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  return () => {
    arrived += 1;
    if (arrived === parties) release();
    return released;
  };
}

describe(withTransaction.name, () => {
  let db: ServiceDatabase;

  beforeAll(async () => {
    db = await openServiceDatabase({
      adminUrl: ADMIN_URL,
      schema: SCHEMA,
      user: SCHEMA,
      password: 'txn-password-123',
      logger,
      pool: { min: 0, max: 4 },
      migrations: [
        {
          name: '20261122090000_create_accounts',
          up: async (knex) => {
            await knex.schema.createTable('accounts', (table) => {
              table.integer('id').primary();
              table.integer('balance').notNullable();
            });
          },
          down: async (knex) => {
            await knex.schema.dropTable('accounts');
          },
        },
      ],
    });
  });

  beforeEach(async () => {
    await db.knex('accounts').delete();
    await db.knex('accounts').insert([
      { id: 1, balance: 0 },
      { id: 2, balance: 0 },
    ]);
  });

  afterAll(async () => {
    await db?.close();
    await dropServiceDatabase({ adminUrl: ADMIN_URL, schema: SCHEMA, user: SCHEMA });
  });

  async function balances(): Promise<number[]> {
    return db.knex('accounts').orderBy('id').pluck('balance');
  }

  /**
   * Two transactions that lock rows 1 and 2 in opposite orders, made to meet in the middle on their
   * first attempt, which is a guaranteed deadlock: the server rolls one back.
   */
  function crossedTransactions(retries: number) {
    const bothHoldFirstLock = barrier(2);
    let attempts = 0;
    const run = (first: number, second: number) => {
      let mine = 0;
      return withTransaction(
        db.knex,
        async (trx) => {
          attempts += 1;
          mine += 1;
          await trx('accounts').where({ id: first }).increment('balance', 1);
          if (mine === 1) await bothHoldFirstLock();
          await trx('accounts').where({ id: second }).increment('balance', 1);
        },
        { retries },
      );
    };
    return { settled: Promise.allSettled([run(1, 2), run(2, 1)]), attempts: () => attempts };
  }

  it('re-runs the transaction that lost a deadlock until it commits', async () => {
    const { settled, attempts } = crossedTransactions(3);
    const results = await settled;
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    expect(attempts()).toBe(3);
    expect(await balances()).toEqual([2, 2]);
  });

  it('surfaces the deadlock when no retries are left', async () => {
    const { settled, attempts } = crossedTransactions(0);
    const results = await settled;
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(rejected).toHaveLength(1);
    expect(rejected[0]?.reason).toMatchObject({ code: 'ER_LOCK_DEADLOCK', errno: 1213 });
    expect(attempts()).toBe(2);
    // Only the survivor's increments remain: the loser was rolled back as a whole.
    expect(await balances()).toEqual([1, 1]);
  });

  it('re-runs after a lock wait timeout', async () => {
    const holder = await db.knex.transaction();
    await holder('accounts').where({ id: 1 }).forUpdate().select();
    let attempts = 0;

    await withTransaction(db.knex, async (trx) => {
      attempts += 1;
      // Releasing only once the first attempt has timed out makes the order certain, not timed.
      if (attempts === 2) await holder.commit();
      await trx.raw('SET SESSION innodb_lock_wait_timeout = 1');
      await trx('accounts').where({ id: 1 }).increment('balance', 10);
    });

    expect(attempts).toBe(2);
    expect(await balances()).toEqual([10, 0]);
  });

  it('does not re-run a transaction that failed for its own reasons, and rolls it back', async () => {
    let attempts = 0;
    const failing = withTransaction(db.knex, async (trx) => {
      attempts += 1;
      await trx('accounts').where({ id: 2 }).increment('balance', 5);
      await trx('accounts').insert({ id: 1, balance: 0 });
    });
    await expect(failing).rejects.toMatchObject({ code: 'ER_DUP_ENTRY' });
    expect(attempts).toBe(1);
    expect(await balances()).toEqual([0, 0]);
  });

  it('returns what the transaction returns', async () => {
    const total = await withTransaction(db.knex, async (trx) => {
      await trx('accounts').where({ id: 1 }).update({ balance: 3 });
      const [row] = (await trx('accounts').sum({ total: 'balance' })) as { total: number | string }[];
      return Number(row?.total);
    });
    expect(total).toBe(3);
  });

  it('inside an outer transaction, leaves retrying to the outer one', async () => {
    let inner = 0;
    await withTransaction(db.knex, async (outer) => {
      await withTransaction(outer, async (trx) => {
        inner += 1;
        await trx('accounts').where({ id: 1 }).update({ balance: 4 });
      });
    });
    expect(inner).toBe(1);
    expect(await balances()).toEqual([4, 0]);
  });
});
