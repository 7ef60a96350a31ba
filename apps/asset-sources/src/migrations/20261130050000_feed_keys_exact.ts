import type { Migration } from '@platform/mysql';

/**
 * The keys set aside by the disable policy compared exactly, by their bytes: `SKU1`, `sku1`, `sku1 ` and
 * `café`/`cafe` are keys of their own, as a feed's duplicate keys are found. Under the schema's collation
 * (utf8mb4_unicode_ci, PAD SPACE) two such keys set aside at once broke the table's primary key, and the run
 * with them. NO PAD, so trailing spaces count too. `asset_source_rows.key_value` keeps the schema's collation
 * (the retail feed list walks its index in alphabetical order ignoring case, and filters without case); the
 * statements that match keys add an exact comparison (`sameKey` in feed-rows.repository.ts).
 */
const EXACT = 'CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin';
const SCHEMA_DEFAULT = 'CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci';

export const feedKeysExact: Migration = {
  name: '20261130050000_feed_keys_exact',
  async up(knex) {
    await knex.raw(`ALTER TABLE feed_disabled_rows MODIFY key_value VARCHAR(255) ${EXACT} NOT NULL`);
  },
  // Refused (a duplicate entry) while a source holds aside two keys the schema's collation takes for one.
  async down(knex) {
    await knex.raw(`ALTER TABLE feed_disabled_rows MODIFY key_value VARCHAR(255) ${SCHEMA_DEFAULT} NOT NULL`);
  },
};
