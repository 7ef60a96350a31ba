import { KeyFilter } from './key-filter';

describe('KeyFilter', () => {
  it('never misses a key added before, and rarely names a new key as seen', () => {
    const filter = new KeyFilter();
    const keys = Array.from({ length: 200_000 }, (_, i) => `SKU-${String(i).padStart(8, '0')}`);
    let falselySeen = 0;
    for (const key of keys) if (filter.add(key)) falselySeen++;
    // 200,000 distinct keys in 4 MiB: false "seen" answers are rare (well under 1 in 10,000).
    expect(falselySeen).toBeLessThan(20);
    for (const key of keys) expect(filter.add(key)).toBe(true);
  });

  it('tells keys apart that differ only in case or in a character outside ASCII', () => {
    const filter = new KeyFilter();
    expect(filter.add('A')).toBe(false);
    expect(filter.add('a')).toBe(false);
    expect(filter.add('Café')).toBe(false);
    expect(filter.add('Cafe')).toBe(false);
    expect(filter.add('a')).toBe(true);
  });
});
