import type { Migration } from '@platform/mysql';

/** The account's running exports, which its asset-export job cap counts at every start, found by index. */
export const indexRunningExports: Migration = {
  name: '20261128120000_index_running_exports',
  async up(knex) {
    await knex.schema.alterTable('exports', (t) => t.index(['account_id', 'running'], 'ix_exports_account_running'));
  },
  async down(knex) {
    await knex.schema.alterTable('exports', (t) => t.dropIndex(['account_id', 'running'], 'ix_exports_account_running'));
  },
};
