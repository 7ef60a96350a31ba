import type { Knex } from 'knex';

/**
 * One schema migration, given in code rather than found in a directory, so a bundled service
 * carries its migrations with it. `name` starts with a UTC timestamp (YYYYMMDDHHMMSS) so that
 * sorting by name is applying in the order they were written.
 */
export interface Migration {
  name: string;
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

const MIGRATION_NAME_PATTERN = /^\d{14}_[a-z0-9_]+$/;

/**
 * A knex migration source over an in-memory list. Names are checked up front: a duplicate or an
 * untimestamped name would otherwise surface later as a confusing "migration directory is corrupt".
 */
export function createMigrationSource(migrations: readonly Migration[]): Knex.MigrationSource<Migration> {
  const seen = new Set<string>();
  for (const { name } of migrations) {
    if (!MIGRATION_NAME_PATTERN.test(name)) {
      throw new Error(`Invalid migration name ${JSON.stringify(name)}: expected YYYYMMDDHHMMSS_snake_case_description`);
    }
    if (seen.has(name)) throw new Error(`Duplicate migration name ${name}`);
    seen.add(name);
  }
  const sorted = [...migrations].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

  return {
    getMigrations: async () => sorted,
    getMigrationName: (migration) => migration.name,
    getMigration: async (migration) => ({ up: migration.up, down: migration.down }),
  };
}
