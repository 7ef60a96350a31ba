import type { Migration } from '@platform/mysql';

export const createDataSignals: Migration = {
  name: '20261123160000_create_data_signals',
  async up(knex) {
    await knex.schema.createTable('data_signals', (t) => {
      t.comment('The data-signal catalog campaigns decide by (seeded on every start from the shipped catalog)');
      t.bigInteger('data_signal_id').primary().comment('Stable id from the shipped catalog; campaigns reference it');
      t.string('data_signal_name', 100).notNullable();
      t.json('properties').notNullable().comment('JSON array of {propertyId, propertyName, operators, valueType}, in catalog order');
      t.datetime('updated_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
    });
  },
  async down(knex) {
    await knex.schema.dropTable('data_signals');
  },
};
