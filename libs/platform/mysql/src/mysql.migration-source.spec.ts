import type { Knex } from 'knex';
import { createMigrationSource, type Migration } from './mysql.migration-source';

function migration(name: string): Migration {
  return { name, up: async () => undefined, down: async () => undefined };
}

describe(createMigrationSource.name, () => {
  it('lists migrations sorted by name, whatever order they were given in', async () => {
    const source = createMigrationSource([
      migration('20261122100000_add_status'),
      migration('20261122090000_create_media_channels'),
      migration('20261201000000_add_index'),
    ]);
    const listed = await source.getMigrations([]);
    expect(listed.map((m) => source.getMigrationName(m))).toEqual([
      '20261122090000_create_media_channels',
      '20261122100000_add_status',
      '20261201000000_add_index',
    ]);
  });

  it('hands knex the up and down of the migration', async () => {
    const calls: string[] = [];
    const given: Migration = {
      name: '20261122090000_create_media_channels',
      up: async () => void calls.push('up'),
      down: async () => void calls.push('down'),
    };
    const loaded = await createMigrationSource([given]).getMigration(given);
    const fakeKnex = {} as Knex;
    await loaded.up(fakeKnex);
    await loaded.down?.(fakeKnex);
    expect(calls).toEqual(['up', 'down']);
  });

  it('does not reorder the caller’s array', () => {
    const given = [migration('20261122100000_b'), migration('20261122090000_a')];
    createMigrationSource(given);
    expect(given.map((m) => m.name)).toEqual(['20261122100000_b', '20261122090000_a']);
  });

  it.each(['create_media_channels', '2026112209_create', '20261122090000-create', '20261122090000_Create'])(
    'rejects the untimestamped or malformed name %s',
    (name) => {
      expect(() => createMigrationSource([migration(name)])).toThrow(/Invalid migration name/);
    },
  );

  it('rejects duplicate names', () => {
    expect(() => createMigrationSource([migration('20261122090000_a'), migration('20261122090000_a')])).toThrow(/Duplicate migration name 20261122090000_a/);
  });
});
