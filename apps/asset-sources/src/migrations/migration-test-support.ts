import type { Knex } from 'knex';
import type { Migration } from '@platform/mysql';
import { openTestSchema, type TestSchema } from '@platform/testing';
import { migrationsUpTo } from '.';

/**
 * For a migration's spec: a schema of its own migrated up to `migration` (a later migration has a
 * spec of its own), opened before the enclosing describe's tests and closed after them. Answers a
 * getter, as the schema exists only once the hooks have run.
 */
export function schemaUpTo(tag: string, migration: Migration): () => TestSchema {
  let schema: TestSchema | undefined;
  beforeAll(async () => {
    schema = await openTestSchema({ tag, base: 'asset_sources', migrations: migrationsUpTo(migration) });
  });
  afterAll(async () => {
    await schema?.close();
  });
  return () => {
    if (!schema) throw new Error(`the schema of ${migration.name}'s spec is not open`);
    return schema;
  };
}

/**
 * A csv-over-http feed source, in the columns every schema since feed sources has; `source` and `feed`
 * add or override columns of its asset_sources and feed_sources rows. Answers its id.
 */
export async function insertFeedSource(knex: Knex, source: Record<string, unknown> = {}, feed: Record<string, unknown> = {}): Promise<number> {
  const [id] = await knex('asset_sources').insert({ account_id: 1, asset_source_type: 'feed', asset_source_name: 'F', column_names: '["sku"]', ...source });
  await knex('feed_sources').insert({
    asset_source_id: id,
    url_type: 'http',
    url_config: '{}',
    content_type: 'csv',
    character_encoding: 'UTF_8',
    csv_separator: 'comma',
    ...feed,
  });
  return Number(id);
}
