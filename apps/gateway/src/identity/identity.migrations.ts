import type { Migration } from '@platform/mysql';

export const createIdentityTables: Migration = {
  name: '20261122100000_create_identity_tables',
  async up(knex) {
    await knex.schema.createTable('orgs', (t) => {
      t.comment('Tenants: an organization owns accounts and API keys');
      t.string('org_id', 64).primary();
      t.string('name', 200).notNullable();
      t.boolean('is_retailer').notNullable().comment('Retailer orgs may use template-campaign media channels');
      t.json('dimension_whitelist').notNullable().comment('Allowed <width>x<height> creative sizes');
      t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
    });
    await knex.schema.createTable('accounts', (t) => {
      t.comment('Accounts of an organization; most /v2 paths are scoped by one');
      t.bigIncrements('account_id').primary();
      t.string('org_id', 64).notNullable().references('org_id').inTable('orgs').withKeyName('fk_accounts_org');
      t.string('name', 200).notNullable();
      t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.index(['org_id', 'account_id'], 'ix_accounts_org');
    });
    await knex.schema.createTable('api_keys', (t) => {
      t.comment('API keys; only a SHA-256 of the secret part is stored');
      t.string('key_id', 32).primary().comment('Public half of the key, also its lookup id');
      t.string('org_id', 64).notNullable().references('org_id').inTable('orgs').withKeyName('fk_api_keys_org');
      t.binary('secret_sha256', 32).notNullable();
      t.json('permissions').notNullable().comment('Permission names, or ["*"]');
      t.boolean('all_accounts').notNullable().comment('True when created without accountIds: every account, present and future');
      t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
      t.datetime('revoked_at', { precision: 3 }).nullable();
    });
    await knex.schema.createTable('api_key_accounts', (t) => {
      t.comment('Accounts a restricted API key may act on');
      t.string('key_id', 32).notNullable().references('key_id').inTable('api_keys').withKeyName('fk_api_key_accounts_key');
      t.bigInteger('account_id').unsigned().notNullable().references('account_id').inTable('accounts').withKeyName('fk_api_key_accounts_account');
      t.primary(['key_id', 'account_id']);
    });
  },
  async down(knex) {
    await knex.schema.dropTable('api_key_accounts');
    await knex.schema.dropTable('api_keys');
    await knex.schema.dropTable('accounts');
    await knex.schema.dropTable('orgs');
  },
};
