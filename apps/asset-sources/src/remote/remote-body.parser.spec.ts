import { MalformedBodyError, parseRemoteBody } from './remote-body.parser';

const columns = ['sku', 'name', 'price'];
const parse = (text: string, type: 'csv' | 'json' | 'xml') => parseRemoteBody(Buffer.from(text), type, columns);

describe(parseRemoteBody.name, () => {
  it('reads CSV with a header row, keeping only the columns', () => {
    expect(parse('sku,name,price,extra\nA1,"Apple, red",1.5,x\nB2,Banana,0.25,y\n', 'csv')).toEqual([
      { sku: 'A1', name: 'Apple, red', price: '1.5' },
      { sku: 'B2', name: 'Banana', price: '0.25' },
    ]);
  });

  it('reads a JSON array, or the array a top-level object wraps', () => {
    expect(parse('[{"sku":"A1","price":1.5,"other":1}]', 'json')).toEqual([{ sku: 'A1', price: 1.5 }]);
    expect(parse('{"meta":{"n":1},"items":[{"sku":"A1","name":"Apple"},{"sku":"B2"}]}', 'json')).toEqual([{ sku: 'A1', name: 'Apple' }, { sku: 'B2' }]);
  });

  it('reads the repeated XML element nearest the root, attributes and children alike', () => {
    const xml =
      '<?xml version="1.0"?><catalog><products><product sku="A1"><name>Apple</name><price>1.5</price></product><product sku="B2"><name>Banana</name></product></products></catalog>';
    expect(parse(xml, 'xml')).toEqual([
      { sku: 'A1', name: 'Apple', price: '1.5' },
      { sku: 'B2', name: 'Banana' },
    ]);
    expect(parse('<products><product><sku>A1</sku></product></products>', 'xml')).toEqual([{ sku: 'A1' }]);
  });

  it.each([
    ['json', '{"sku": ', /not valid JSON/],
    ['json', '{"count": 3}', /no array of objects/],
    ['xml', '<products><product></products>', /not valid XML/],
    ['csv', 'sku,name\n"A1,Apple\n', /not valid CSV/],
  ] as const)('refuses a malformed %s body naming why', (type, text, reason) => {
    expect(() => parse(text, type)).toThrow(MalformedBodyError);
    expect(() => parse(text, type)).toThrow(reason);
  });
});
