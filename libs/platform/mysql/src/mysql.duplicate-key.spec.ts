import { AppError, problem } from '@platform/errors';
import { duplicateKeyName, isDuplicateKey, rethrowDuplicateKey } from './mysql.duplicate-key';

/** Shaped like mysql2's errors; knex prefixes `message` with the SQL but keeps `sqlMessage`. */
function duplicate(sqlMessage: string, message = sqlMessage): Error {
  return Object.assign(new Error(message), { errno: 1062, code: 'ER_DUP_ENTRY', sqlMessage });
}

const mariadb = duplicate("Duplicate entry 'acme-Twin-0' for key 'uq_media_channels_org_live_name'");

describe(duplicateKeyName.name, () => {
  it('reads the index from MariaDB and MySQL 8 wording, and through knex', () => {
    expect(duplicateKeyName(mariadb)).toBe('uq_media_channels_org_live_name');
    expect(duplicateKeyName(duplicate("Duplicate entry 'x' for key 'media_channels.uq_name'"))).toBe('uq_name');
    const wrapped = Object.assign(new Error("insert into `t` (`a`) values ('x') - Duplicate entry 'x' for key 'PRIMARY'"), { errno: 1062 });
    expect(duplicateKeyName(wrapped)).toBe('PRIMARY');
  });

  it('is not fooled by a quoted key name inside the duplicated value', () => {
    expect(duplicateKeyName(duplicate("Duplicate entry 'for key 'evil'' for key 'uq_real'"))).toBe('uq_real');
  });

  it('gives undefined for anything else', () => {
    expect(duplicateKeyName(new Error('boom'))).toBeUndefined();
    expect(duplicateKeyName('ER_DUP_ENTRY')).toBeUndefined();
    expect(duplicateKeyName(null)).toBeUndefined();
  });
});

describe(isDuplicateKey.name, () => {
  it('recognises ER_DUP_ENTRY by errno or code', () => {
    expect(isDuplicateKey(mariadb)).toBe(true);
    expect(isDuplicateKey(Object.assign(new Error('x'), { code: 'ER_DUP_ENTRY' }))).toBe(true);
    expect(isDuplicateKey(Object.assign(new Error('x'), { errno: 1062 }))).toBe(true);
  });

  it('tells the unique indexes of a table apart when given one', () => {
    expect(isDuplicateKey(mariadb, 'uq_media_channels_org_live_name')).toBe(true);
    expect(isDuplicateKey(mariadb, 'uq_outbox_msg_id')).toBe(false);
  });

  it('refuses other failures', () => {
    expect(isDuplicateKey(Object.assign(new Error('deadlock'), { errno: 1213, code: 'ER_LOCK_DEADLOCK' }))).toBe(false);
    expect(isDuplicateKey(new Error("Duplicate entry 'x' for key 'k'"))).toBe(false);
    expect(isDuplicateKey(undefined)).toBe(false);
  });
});

describe(rethrowDuplicateKey.name, () => {
  const taken = () => problem('MEDIA_CHANNEL_NAME_TAKEN', 'The name is taken.');

  it('turns a duplicate into the domain error', () => {
    expect(() => rethrowDuplicateKey(mariadb, taken)).toThrow(AppError);
    expect(() => rethrowDuplicateKey(mariadb, taken, { key: 'uq_media_channels_org_live_name' })).toThrow(
      expect.objectContaining({ status: 409, code: 'MEDIA_CHANNEL_NAME_TAKEN' }),
    );
  });

  it('rethrows everything else unchanged, including a duplicate on another index', () => {
    const other = new Error('connection lost');
    expect(() => rethrowDuplicateKey(other, taken)).toThrow(other);
    expect(() => rethrowDuplicateKey(mariadb, taken, { key: 'uq_other' })).toThrow(mariadb);
  });

  it('works as a promise catch handler', async () => {
    await expect(Promise.reject(mariadb).catch((e: unknown) => rethrowDuplicateKey(e, taken))).rejects.toMatchObject({ code: 'MEDIA_CHANNEL_NAME_TAKEN' });
  });
});
