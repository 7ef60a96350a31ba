import { counted } from './counted';

describe('counted', () => {
  it('names one of a thing in the singular and any other count in the plural', () => {
    expect(counted(1, 'row')).toBe('1 row');
    expect(counted(0, 'row')).toBe('0 rows');
    expect(counted(2, 'duplicate key')).toBe('2 duplicate keys');
    expect(counted(3, 'entry', 'entries')).toBe('3 entries');
  });
});
