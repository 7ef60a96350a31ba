import type { Migration } from '@platform/mysql';

/**
 * Asset key values compared exactly, by their bytes: `SKU1`, `sku1`, `sku1 ` and `café`/`cafe` are keys of
 * their own, as a feed's duplicate keys are found. Under the schema's collation (utf8mb4_unicode_ci, PAD SPACE)
 * the missing-row policies took such keys for one: the keep policy dropped the rows it should have kept, the
 * disable policy set none of them aside, and two of them set aside at once broke feed_disabled_rows' primary key.
 * NO PAD, so trailing spaces count too.
 */
const EXACT = 'CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin';
const SCHEMA_DEFAULT = 'CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci';
const ROWS_KEY_COMMENT = 'The row value of the source asset key column (first 255 characters), compared exactly, for keyed lookups';

export const feedKeysExact: Migration = {
  name: '20261130050000_feed_keys_exact',
  async up(knex) {
    await knex.raw(`ALTER TABLE asset_source_rows MODIFY key_value VARCHAR(255) ${EXACT} NULL COMMENT '${ROWS_KEY_COMMENT}'`);
    await knex.raw(`ALTER TABLE feed_disabled_rows MODIFY key_value VARCHAR(255) ${EXACT} NOT NULL`);
  },
  // Refused (a duplicate entry) while a source holds aside two keys the schema's collation takes for one.
  async down(knex) {
    await knex.raw(`ALTER TABLE feed_disabled_rows MODIFY key_value VARCHAR(255) ${SCHEMA_DEFAULT} NOT NULL`);
    await knex.raw(
      `ALTER TABLE asset_source_rows MODIFY key_value VARCHAR(255) ${SCHEMA_DEFAULT} NULL ` +
        `COMMENT 'The row value of the source asset key column (first 255 characters), for keyed lookups'`,
    );
  },
};
