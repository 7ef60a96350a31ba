import { ExpiringLru } from './expiring-lru';

describe(ExpiringLru.name, () => {
  let clock: number;
  let removed: string[];
  const lru = (maxWeight: number, ttlMs = 1_000) =>
    new ExpiringLru<string>({ ttlMs, maxWeight, weigh: (value) => value.length, onRemove: (key) => removed.push(key), now: () => clock });

  beforeEach(() => {
    clock = 0;
    removed = [];
  });

  it('tells of each entry that leaves: replaced, deleted, expired or pushed out by weight', () => {
    const map = lru(6, 100);
    map.set('a', 'xx');
    map.set('a', 'yy');
    map.set('b', 'xx');
    map.delete('b');
    map.set('c', 'xx');
    clock = 100;
    expect(map.get('c')).toBeUndefined();
    map.set('d', 'xxxx');
    map.set('e', 'xxx');
    expect(removed).toEqual(['a', 'b', 'c', 'a', 'd']);
    expect([map.size, map.weight]).toEqual([1, 3]);
  });

  it('refuses a value heavier than the whole bound, keeping what it held', () => {
    const map = lru(3);
    map.set('a', 'xx');
    expect(map.set('b', 'xxxx')).toBe(false);
    expect(map.peek('a')).toBe('xx');
  });

  it('lets entries be deleted while they are iterated', () => {
    const map = lru(10);
    for (const key of ['a', 'b', 'c']) map.set(key, key);
    for (const [key] of map.entries()) if (key !== 'b') map.delete(key);
    expect([...map.entries()]).toEqual([['b', 'b']]);
  });
});
