import { Type } from '@sinclair/typebox';
import { FREE_FORM_JSON_MAX_DEPTH } from '@contracts/domain';
import { FreeFormObject, IdInt64, Idx, Nullable, OrgId, PathParams, StringEnum } from '../routes/common.schemas';
import { PageQuery } from './pagination';
import { compileValidator, invalidUnicode } from './validation';

describe(compileValidator.name, () => {
  const body = compileValidator(
    Type.Object(
      { name: Type.String({ minLength: 2 }), kind: Type.Unsafe({ type: 'string', enum: ['a', 'b'] }), nested: Type.Object({ flag: Type.Boolean() }) },
      { additionalProperties: false },
    ),
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

describe('fields that may be null', () => {
  const body = compileValidator(
    Type.Object(
      {
        frequency: Type.Optional(Nullable(StringEnum(['HOURLY', 'DAILY']))),
        startTime: Type.Optional(Nullable(Type.String({ pattern: '^[0-2][0-9]:[0-5][0-9]$', description: 'hh:mm, US Eastern.' }))),
        either: Type.Optional(Type.Union([Type.String({ minLength: 3 }), Type.Integer({ minimum: 10 })])),
      },
      { additionalProperties: false },
    ),
    'body',
  );

  it('take null and a valid value', () => {
    expect(body({ frequency: null, startTime: null })).toEqual([]);
    expect(body({ frequency: 'DAILY', startTime: '09:30' })).toEqual([]);
  });

  it("answer a wrong value with the field's own rule alone, not the null branch or the anyOf", () => {
    expect(body({ frequency: 'MONTHLY', startTime: '9h30' })).toEqual([
      { pointer: '/frequency', code: 'NOT_ALLOWED', detail: 'frequency must be one of: "HOURLY", "DAILY".' },
      // The pattern's description says what it means.
      { pointer: '/startTime', code: 'INVALID_FORMAT', detail: 'startTime must match ^[0-2][0-9]:[0-5][0-9]$ (hh:mm, US Eastern).' },
    ]);
    // As the same field would be answered were it not nullable.
    expect(body({ frequency: 7 }).map((e) => e.code)).toEqual(['INVALID_TYPE', 'NOT_ALLOWED']);
  });

  it('report any other union whole: each branch says what it wanted', () => {
    expect(body({ either: 'ab' }).map((e) => e.code)).toEqual(['TOO_SHORT', 'INVALID_TYPE', 'ANYOF']);
  });
});

describe('bounds of path, query and free-form body fields', () => {
  const path = compileValidator(PathParams({ orgId: OrgId, mediaChannelIdx: Idx }), 'path');
  const query = compileValidator(PageQuery, 'query');
  const body = compileValidator(Type.Object({ config: FreeFormObject(1024, 'Settings.') }, { additionalProperties: false }), 'body');

  const nested = (depth: number) => {
    let value: Record<string, unknown> = { leaf: true };
    for (let i = 1; i < depth; i++) value = { a: value };
    return value;
  };

  it('refuses integers that are not plain decimal literals instead of reading them', () => {
    for (const spelling of ['1e3', '0x10', '1.0', ' 7', '+7', '07']) {
      expect(path({ orgId: 'acme', mediaChannelIdx: spelling })).toEqual([expect.objectContaining({ parameter: 'mediaChannelIdx', code: 'INVALID_FORMAT' })]);
    }
    expect(query({ offset: '1e99' })).toEqual([expect.objectContaining({ parameter: 'offset', code: 'INVALID_FORMAT' })]);
    expect(query({ offset: 'ten' })).toEqual([{ parameter: 'offset', code: 'INVALID_TYPE', detail: 'offset must be of type integer.' }]);
    expect(query({ offset: '' })).toEqual([expect.objectContaining({ parameter: 'offset', code: 'INVALID_TYPE' })]);
  });

  it('bounds integers by the proto field they feed', () => {
    expect(path({ orgId: 'acme', mediaChannelIdx: '99999999999999999999' })).toEqual([
      { parameter: 'mediaChannelIdx', code: 'OUT_OF_RANGE', detail: 'mediaChannelIdx must be <= 9007199254740991.' },
    ]);
    expect(query({ offset: '2147483648' })).toEqual([{ parameter: 'offset', code: 'OUT_OF_RANGE', detail: 'offset must be <= 2147483647.' }]);
    const values: Record<string, unknown> = { orgId: 'acme', mediaChannelIdx: '9007199254740991' };
    expect(path(values)).toEqual([]);
    expect(values.mediaChannelIdx).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('refuses a query parameter given twice', () => {
    expect(query({ limit: ['5', '6'] })).toEqual([expect.objectContaining({ parameter: 'limit', code: 'DUPLICATE_PARAMETER' })]);
  });

  it('bounds the depth of a free-form object without overflowing the stack', () => {
    expect(body({ config: nested(FREE_FORM_JSON_MAX_DEPTH) })).toEqual([]);
    expect(body({ config: nested(FREE_FORM_JSON_MAX_DEPTH + 1) })).toEqual([
      { pointer: '/config', code: 'TOO_DEEP', detail: `config must not nest objects or arrays more than ${FREE_FORM_JSON_MAX_DEPTH} deep.` },
    ]);
    expect(body({ config: nested(200_000) })).toEqual([expect.objectContaining({ pointer: '/config', code: 'TOO_DEEP' })]);
  });

  it('bounds the serialized size of a free-form object', () => {
    expect(body({ config: { blob: 'x'.repeat(2000) } })).toEqual([
      { pointer: '/config', code: 'TOO_LARGE', detail: 'config must serialize to at most 1024 bytes; got 2011.' },
    ]);
  });
});

describe('identifiers given as an integer or a digit string', () => {
  const body = compileValidator(
    Type.Object({ map: Type.Array(Type.Object({ sourceId: IdInt64({ minimum: 1 }) }, { additionalProperties: false }), { maxItems: 5 }) }),
    'body',
  );
  const sourceIds = (...ids: unknown[]) => ({ map: ids.map((sourceId) => ({ sourceId })) });

  it('takes both spellings and hands the handler the integer', () => {
    const value = sourceIds(42, '42', '9007199254740991');
    expect(body(value)).toEqual([]);
    expect(value).toEqual(sourceIds(42, 42, Number.MAX_SAFE_INTEGER));
  });

  it('refuses other spellings, naming the field', () => {
    for (const spelling of ['+7', '07', '1e3', ' 7', '7 ', '0x10', '1.0', '', 'seven']) {
      expect(body(sourceIds(spelling))).toEqual([expect.objectContaining({ pointer: '/map/0/sourceId', code: 'INVALID_FORMAT' })]);
    }
    expect(body(sourceIds(1.5, true, null, {}))).toEqual(
      [0, 1, 2, 3].map((i) => ({ pointer: `/map/${i}/sourceId`, code: 'INVALID_TYPE', detail: `map.${i}.sourceId must be of type integer,string.` })),
    );
  });

  it("bounds a digit string by the integer's range, as it bounds the integer", () => {
    expect(body(sourceIds('0', 0))).toEqual([
      { pointer: '/map/0/sourceId', code: 'OUT_OF_RANGE', detail: 'map.0.sourceId must be >= 1.' },
      { pointer: '/map/1/sourceId', code: 'OUT_OF_RANGE', detail: 'map.1.sourceId must be >= 1.' },
    ]);
    expect(body(sourceIds('9007199254740992'))).toEqual([
      { pointer: '/map/0/sourceId', code: 'OUT_OF_RANGE', detail: 'map.0.sourceId must be <= 9007199254740991.' },
    ]);
    expect(body(sourceIds('123456789012345678901234'))).toEqual([expect.objectContaining({ pointer: '/map/0/sourceId', code: 'TOO_LONG' })]);
  });
});

describe('text that is not valid Unicode', () => {
  const body = compileValidator(Type.Object({ name: Type.String({ maxLength: 10 }), config: FreeFormObject(1024, 'Settings.') }), 'body');
  const query = compileValidator(PageQuery, 'query');

  it('refuses a lone surrogate anywhere in the body, free-form JSON and member names included, naming its pointer', () => {
    expect(body({ name: 'a\ud800', config: {} })).toEqual([
      { pointer: '/name', code: 'INVALID_UNICODE', detail: 'The string holds a lone UTF-16 surrogate; send valid Unicode text.' },
    ]);
    expect(body({ name: 'ok', config: { list: [1, { 'a/b': '\udc00' }] } })).toEqual([
      expect.objectContaining({ pointer: '/config/list/1/a~1b', code: 'INVALID_UNICODE' }),
    ]);
    expect(body({ name: 'ok', config: { nested: { '\ud800key': 1 } } })).toEqual([
      { pointer: '/config/nested', code: 'INVALID_UNICODE', detail: 'A member name holds a lone UTF-16 surrogate; send valid Unicode text.' },
    ]);
  });

  it('takes surrogate pairs and other valid text', () => {
    expect(body({ name: 'ok 😀', config: { 'ключ 😀': ['数据', '\u0000'] } })).toEqual([]);
  });

  it('walks deep nesting without the stack', () => {
    let deep: unknown = '\ud800';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(invalidUnicode({ deep }, 'body')).toEqual([expect.objectContaining({ pointer: `/deep${'/0'.repeat(100_000)}`, code: 'INVALID_UNICODE' })]);
  });

  it('refuses it in path and query parameters, naming the parameter', () => {
    expect(query({ offset: '\ud800' })).toEqual([expect.objectContaining({ parameter: 'offset', code: 'INVALID_UNICODE' })]);
  });
});
