import type { Migration } from '@platform/mysql';

export const createRateLimitWindows: Migration = {
  name: '20261125003100_create_rate_limit_windows',
  async up(knex) {
    await knex.schema.createTable('rate_limit_windows', (t) => {
      t.comment('Requests counted per rate-limit subject and minute, shared by every gateway replica');
      t.string('subject', 100).notNullable().comment('key:<keyId> or account:<accountId>');
      t.bigInteger('window_start').unsigned().notNullable().comment('Minutes since the epoch (UTC) the window covers');
      t.integer('hits').unsigned().notNullable();
      t.primary(['subject', 'window_start'], 'pk_rate_limit_windows');
      t.index(['window_start'], 'ix_rate_limit_windows_start');
    });
  },
  async down(knex) {
    await knex.schema.dropTable('rate_limit_windows');
  },
};
