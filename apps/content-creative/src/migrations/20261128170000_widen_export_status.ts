import type { Migration } from '@platform/mysql';

/** FAILED_TO_INITIATE (18 characters) is a stored status: the column was 16 wide. */
export const widenExportStatus: Migration = {
  name: '20261128170000_widen_export_status',
  async up(knex) {
    await knex.schema.alterTable('exports', (t) => {
      t.string('status', 24).notNullable().comment('INITIATED, PROCESSING, COMPLETED, FAILED or FAILED_TO_INITIATE').alter();
    });
  },
  async down(knex) {
    await knex('exports').where({ status: 'FAILED_TO_INITIATE' }).update({ status: 'FAILED' });
    await knex.schema.alterTable('exports', (t) => {
      t.string('status', 16).notNullable().comment('INITIATED, PROCESSING, COMPLETED or FAILED').alter();
    });
  },
};
