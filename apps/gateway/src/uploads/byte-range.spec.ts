import { byteRange } from './byte-range';

describe('byteRange', () => {
  it('reads a start and end, an open end and a suffix, clamped to the body', () => {
    expect(byteRange('bytes=0-99', 1000)).toEqual({ start: 0, end: 99 });
    expect(byteRange('bytes=900-', 1000)).toEqual({ start: 900, end: 999 });
    expect(byteRange('bytes=900-5000', 1000)).toEqual({ start: 900, end: 999 });
    expect(byteRange('bytes=-100', 1000)).toEqual({ start: 900, end: 999 });
    expect(byteRange('bytes=-5000', 1000)).toEqual({ start: 0, end: 999 });
    expect(byteRange('bytes=0-1', 1)).toEqual({ start: 0, end: 0 });
  });

  it('answers the whole body for no header, another unit, several ranges or a reversed range', () => {
    for (const header of [undefined, 'items=0-1', 'bytes=0-1,5-6', 'bytes=5-1', 'bytes=-', 'bytes=abc']) expect(byteRange(header, 1000)).toBeUndefined();
  });

  it('is unsatisfiable past the end or for an empty suffix', () => {
    expect(byteRange('bytes=1000-', 1000)).toBe('unsatisfiable');
    expect(byteRange('bytes=0-', 0)).toBe('unsatisfiable');
    expect(byteRange('bytes=-0', 1000)).toBe('unsatisfiable');
  });
});
