import { defineFields } from '@contracts/domain';
import { fieldColumns } from './mysql.field-table';

const TABLE = defineFields({
  itemId: { kind: 'int', column: 'item_id' },
  itemName: { kind: 'string', column: 'item_name', maxLength: 50, create: 'required', update: true },
  limitCents: { kind: 'int', column: 'limit_cents', nullable: true, create: 'optional', update: true },
  isLive: { kind: 'bool', column: 'is_live', create: 'optional', default: false },
  settings: { kind: 'json', column: 'settings', maxBytes: 1000, nullable: true, update: true },
  createdAt: { kind: 'timestamp', column: 'created_at' },
  // A member of a JSON column, not a column of its own.
  note: { kind: 'string', maxLength: 10 },
});

describe(fieldColumns.name, () => {
  const columns = fieldColumns(TABLE);

  it('selects every column of the table, aliased when asked, and nothing that is not a column', () => {
    expect(columns.selectList).toBe('item_id, item_name, limit_cents, is_live, settings, created_at');
    expect(fieldColumns(TABLE, 'i').selectList).toBe('i.item_id, i.item_name, i.limit_cents, i.is_live, i.settings, i.created_at');
  });

  it('reads a row as the record: BIGINT text as numbers, 0/1 as booleans, JSON text parsed, NULL as null', () => {
    const createdAt = new Date('2026-03-01T08:00:00.000Z');
    expect(columns.toRecord({ item_id: '12', item_name: 'Shelf', limit_cents: null, is_live: 1, settings: '{"a":[1]}', created_at: createdAt })).toEqual({
      itemId: 12,
      itemName: 'Shelf',
      limitCents: null,
      isLive: true,
      settings: { a: [1] },
      createdAt,
    });
  });

  it('writes only the fields given, by column, JSON as text', () => {
    expect(columns.toColumns({ itemName: 'Shelf', limitCents: null, settings: { a: 1 }, note: 'x' })).toEqual({
      item_name: 'Shelf',
      limit_cents: null,
      settings: '{"a":1}',
    });
    expect(columns.toColumns({ limitCents: undefined })).toEqual({});
  });
});
