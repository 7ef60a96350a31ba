import { readJsonColumn, writeJsonColumn } from './mysql.json-column';

describe(readJsonColumn.name, () => {
  it('parses the text a jsonStrings connection returns', () => {
    expect(readJsonColumn('{"a":[1,true,null],"b":{"c":"d"}}')).toEqual({ a: [1, true, null], b: { c: 'd' } });
    expect(readJsonColumn('"text"')).toBe('text');
    expect(readJsonColumn('12.5')).toBe(12.5);
  });

  it('reads SQL NULL as null', () => {
    expect(readJsonColumn(null)).toBeNull();
    expect(readJsonColumn(undefined)).toBeNull();
  });

  it('passes through a value another connection already parsed', () => {
    const parsed = { a: 1 };
    expect(readJsonColumn(parsed)).toBe(parsed);
  });

  it('fails loudly on text that is not JSON', () => {
    expect(() => readJsonColumn('{not json')).toThrow(SyntaxError);
  });
});

describe(writeJsonColumn.name, () => {
  it('serializes values, and round-trips through readJsonColumn', () => {
    const value = { name: 'ü', nested: { list: [1, 2] } };
    expect(writeJsonColumn(value)).toBe('{"name":"ü","nested":{"list":[1,2]}}');
    expect(readJsonColumn(writeJsonColumn(value))).toEqual(value);
    expect(writeJsonColumn(false)).toBe('false');
    expect(writeJsonColumn(0)).toBe('0');
  });

  it('stores null and undefined as SQL NULL, not the JSON literal', () => {
    expect(writeJsonColumn(null)).toBeNull();
    expect(writeJsonColumn(undefined)).toBeNull();
  });

  it('refuses values JSON cannot hold instead of storing nothing', () => {
    expect(() => writeJsonColumn(() => 1)).toThrow(/function cannot be stored/);
    expect(() => writeJsonColumn(Symbol('s'))).toThrow(/symbol cannot be stored/);
  });
});
