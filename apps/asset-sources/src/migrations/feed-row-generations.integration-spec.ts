import { migrateDown } from '@platform/mysql';
import { feedRowGenerations } from './20261128160000_feed_row_generations';
import { insertFeedSource, schemaUpTo } from './migration-test-support';

jest.setTimeout(60_000);

/**
 * The 20261128160000 migration on data written before it: the served rows become generation 0, a
 * version the shrink guard holds keeps its rows (generation 1), and down puts them back in staging.
 */
describe('migration 20261128160000_feed_row_generations', () => {
  const schema = schemaUpTo('feedgen', feedRowGenerations);

  it('keeps the rows serving and a held version across up and down', async () => {
    const { knex } = schema().db;
    expect(await migrateDown(schema().db)).toEqual(['20261128160000_feed_row_generations']);
    const id = await insertFeedSource(knex, { row_count: 2 }, { held_queue_id: 'held-run', held_reason: 'Held: fewer rows' });
    await knex('feed_runs').insert({ queue_id: 'held-run', asset_source_id: id, account_id: 1, run_trigger: 'update', status: 'Held' });
    await knex('asset_source_rows').insert(
      [0, 1].map((ordinal) => ({ asset_source_id: id, ordinal, key_value: `S${ordinal}`, row_json: `{"sku":"S${ordinal}"}` })),
    );
    await knex('feed_staged_rows').insert({ queue_id: 'held-run', ordinal: 0, line: 2, key_value: 'H0', row_json: '{"sku":"H0"}' });

    await knex.migrate.latest();
    const rows = await knex('asset_source_rows').where({ asset_source_id: id }).orderBy(['generation', 'ordinal']).select('generation', 'key_value');
    expect(rows).toEqual([
      { generation: 0, key_value: 'S0' },
      { generation: 0, key_value: 'S1' },
      { generation: 1, key_value: 'H0' },
    ]);
    expect(await knex('asset_sources').where({ asset_source_id: id }).first('row_generation')).toEqual({ row_generation: 0 });
    expect(await knex('feed_runs').where({ queue_id: 'held-run' }).first('row_generation')).toEqual({ row_generation: 1 });
    expect(await knex('feed_sources').where({ asset_source_id: id }).first('last_row_generation', 'held_queue_id')).toEqual({
      last_row_generation: 1,
      held_queue_id: 'held-run',
    });

    await migrateDown(schema().db);
    expect(await knex('asset_source_rows').where({ asset_source_id: id }).orderBy('ordinal').pluck('key_value')).toEqual(['S0', 'S1']);
    expect(await knex('feed_staged_rows').where({ queue_id: 'held-run' }).pluck('key_value')).toEqual(['H0']);
    await knex.migrate.latest();
  });
});
