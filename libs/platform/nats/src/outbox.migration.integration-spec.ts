import { randomBytes } from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import { OUTBOX_TABLE, outboxMigration } from './outbox.migration';

const MYSQL_URL = process.env['MYSQL_URL'] ?? 'mysql://root@127.0.0.1:3306';

describe('outboxMigration', () => {
  const schema = `t_${randomBytes(4).toString('hex')}`;
  let admin: Knex;
  let knex: Knex;

  beforeAll(async () => {
    admin = knexFactory({ client: 'mysql2', connection: MYSQL_URL, pool: { min: 0, max: 1 } });
    await admin.raw('CREATE DATABASE ??', [schema]);
    knex = knexFactory({ client: 'mysql2', connection: `${MYSQL_URL}/${schema}`, pool: { min: 0, max: 1 } });
  });
  afterAll(async () => {
    await knex?.destroy();
    await admin?.raw('DROP DATABASE IF EXISTS ??', [schema]);
    await admin?.destroy();
  });

  it('has a timestamped name, as the service migration lists require', () => {
    expect(outboxMigration.name).toMatch(/^\d{14}_[a-z0-9_]+$/);
  });

  it('creates a commented table with the relay index and a unique msg_id, and drops it on down', async () => {
    await outboxMigration.up(knex);

    const [table] = await knex('information_schema.tables').where({ table_schema: schema, table_name: OUTBOX_TABLE }).select('table_comment');
    expect(table.table_comment).toMatch(/relayed to NATS JetStream/);
    const columns: { column_name: string; column_comment: string; column_type: string }[] = await knex('information_schema.columns')
      .where({ table_schema: schema, table_name: OUTBOX_TABLE })
      .select('column_name', 'column_comment', 'column_type');
    expect(columns.map((column) => column.column_name)).toEqual(
      expect.arrayContaining(['id', 'subject', 'msg_id', 'payload', 'created_at', 'published_at', 'attempts']),
    );
    for (const column of columns) expect(column.column_comment).not.toBe('');
    expect(columns.find((column) => column.column_name === 'payload')?.column_type).toBe('mediumblob');

    const indexes: { index_name: string; column_name: string; non_unique: number }[] = await knex('information_schema.statistics')
      .where({ table_schema: schema, table_name: OUTBOX_TABLE })
      .orderBy(['index_name', 'seq_in_index'])
      .select('index_name', 'column_name', 'non_unique');
    expect(indexes.filter((index) => index.index_name === 'outbox_published_at_id_index').map((index) => index.column_name)).toEqual(['published_at', 'id']);
    expect(indexes.find((index) => index.index_name === 'outbox_msg_id_unique')).toMatchObject({ column_name: 'msg_id', non_unique: 0 });

    await knex(OUTBOX_TABLE).insert({ subject: 's', msg_id: 'same', payload: Buffer.from('x') });
    await expect(knex(OUTBOX_TABLE).insert({ subject: 's', msg_id: 'same', payload: Buffer.from('y') })).rejects.toThrow(/Duplicate/);

    await outboxMigration.down(knex);
    expect(await knex.schema.hasTable(OUTBOX_TABLE)).toBe(false);
  });
});
