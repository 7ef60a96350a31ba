import { randomBytes } from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import { isNamedLockFree, withNamedLock } from './mysql.named-lock';

const ADMIN_URL = process.env['MYSQL_URL'] ?? 'mysql://root@127.0.0.1:3306';
/** Lock names are server-wide: each run of this spec uses its own. */
const SCHEMA = `t_${randomBytes(4).toString('hex')}`;

describe(withNamedLock.name, () => {
  let knex: Knex;

  beforeAll(() => {
    knex = knexFactory({ client: 'mysql2', connection: ADMIN_URL, pool: { min: 0, max: 3 } });
  });
  afterAll(async () => {
    await knex.destroy();
  });

  it('holds the lock for the work: a second taker is refused at once and the lock reads as taken until the work ends', async () => {
    expect(await isNamedLockFree(knex, SCHEMA, 'feed-1')).toBe(true);
    const seenInside = await withNamedLock(knex, SCHEMA, 'feed-1', async () => ({
      second: await withNamedLock(knex, SCHEMA, 'feed-1', async () => 'ran'),
      free: await isNamedLockFree(knex, SCHEMA, 'feed-1'),
      otherFree: await isNamedLockFree(knex, SCHEMA, 'feed-2'),
    }));
    expect(seenInside).toEqual({ acquired: true, result: { second: { acquired: false }, free: false, otherFree: true } });
    expect(await isNamedLockFree(knex, SCHEMA, 'feed-1')).toBe(true);
  });

  it('releases the lock when the work throws', async () => {
    await expect(withNamedLock(knex, SCHEMA, 'feed-3', async () => Promise.reject(new Error('work failed')))).rejects.toThrow('work failed');
    expect(await isNamedLockFree(knex, SCHEMA, 'feed-3')).toBe(true);
  });
});
