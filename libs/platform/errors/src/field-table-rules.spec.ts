import { defineFields } from '@contracts/domain';
import { fieldTableErrors } from './field-table-rules';

const TABLE = defineFields({
  itemId: { kind: 'int', column: 'item_id' },
  itemName: { kind: 'string', maxLength: 5, minLength: 1, trim: true, create: 'required', update: true },
  code: { kind: 'string', maxLength: 4, pattern: '^[A-Z]+$', create: 'optional' },
  limitCents: { kind: 'int', minimum: 1, nullable: true, create: 'optional', update: true, json: 'limit' },
  state: { kind: 'enum', values: ['ON', 'OFF'], update: true },
  isLive: { kind: 'bool', create: 'optional', default: false },
});

const codes = (errors: { pointer?: string; code: string }[]) => errors.map((e) => [e.pointer, e.code]);

describe(fieldTableErrors.name, () => {
  it('accepts what the table allows', () => {
    expect(fieldTableErrors(TABLE, 'create', { itemName: 'ab', code: 'AB', limitCents: 3, isLive: true })).toEqual([]);
    expect(fieldTableErrors(TABLE, 'update', { state: 'OFF', limitCents: undefined })).toEqual([]);
  });

  it('names each field that breaks its bounds, by JSON pointer, in the order given; a missing required one last', () => {
    const errors = fieldTableErrors(TABLE, 'create', { limitCents: 0, code: 'ab', isLive: 'yes' });
    expect(codes(errors)).toEqual([
      ['/limit', 'OUT_OF_RANGE'],
      ['/code', 'INVALID_FORMAT'],
      ['/isLive', 'INVALID_TYPE'],
      ['/itemName', 'REQUIRED'],
    ]);
    expect(codes(fieldTableErrors(TABLE, 'create', { itemName: '   ' }))).toEqual([['/itemName', 'REQUIRED']]);
    expect(codes(fieldTableErrors(TABLE, 'update', { itemName: 'abcdef', state: 'MAYBE' }))).toEqual([
      ['/itemName', 'TOO_LONG'],
      ['/state', 'NOT_ALLOWED'],
    ]);
  });

  it('ignores fields the operation does not write, and refuses unknown ones only when asked', () => {
    expect(fieldTableErrors(TABLE, 'update', { itemId: -1, code: '??' })).toEqual([]);
    expect(fieldTableErrors(TABLE, 'update', { other: 1 })).toEqual([]);
    expect(fieldTableErrors(TABLE, 'update', { other: 1 }, { rejectUnknown: 'a field of an item' })).toEqual([
      { pointer: '/other', code: 'UNKNOWN_FIELD', detail: 'other is not a field of an item.' },
    ]);
  });
});
