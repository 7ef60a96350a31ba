import { Type } from '@sinclair/typebox';
import { compileValidator } from './validation';

describe(compileValidator.name, () => {
  const body = compileValidator(
    Type.Object({ name: Type.String({ minLength: 2 }), kind: Type.Unsafe({ type: 'string', enum: ['a', 'b'] }), nested: Type.Object({ flag: Type.Boolean() }) }, { additionalProperties: false }),
    'body',
  );

  it('returns no errors for a valid body', () => {
    expect(body({ name: 'ok', kind: 'a', nested: { flag: true } })).toEqual([]);
  });

  it('names each bad field with a JSON pointer, a stable code and a readable rule', () => {
    expect(body({ name: 'x', kind: 'c', nested: {}, extra: 1 })).toEqual([
      { pointer: '/extra', code: 'UNKNOWN_FIELD', detail: 'extra is not a known field.' },
      { pointer: '/name', code: 'TOO_SHORT', detail: 'name must be at least 2 characters long.' },
      { pointer: '/kind', code: 'NOT_ALLOWED', detail: 'kind must be one of: "a", "b".' },
      { pointer: '/nested/flag', code: 'REQUIRED', detail: 'nested.flag is required.' },
    ]);
  });

  it('does not coerce body types', () => {
    expect(body({ name: 'ok', kind: 'a', nested: { flag: 'true' } })).toEqual([expect.objectContaining({ pointer: '/nested/flag', code: 'INVALID_TYPE' })]);
  });

  it('coerces and defaults query parameters, naming the parameter', () => {
    const query = compileValidator(Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 100, default: 25 }) }, { additionalProperties: false }), 'query');
    const values: Record<string, unknown> = {};
    expect(query(values)).toEqual([]);
    expect(values.limit).toBe(25);
    const given: Record<string, unknown> = { limit: '7' };
    query(given);
    expect(given.limit).toBe(7);
    expect(query({ limit: '500' })).toEqual([{ parameter: 'limit', code: 'OUT_OF_RANGE', detail: 'limit must be <= 100.' }]);
  });
});
