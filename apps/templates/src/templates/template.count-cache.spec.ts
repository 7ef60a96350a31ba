import { TemplateCountCache } from './template.count-cache';

describe(TemplateCountCache.name, () => {
  it('answers a total only at the version it was counted at', () => {
    const cache = new TemplateCountCache();
    const key = TemplateCountCache.key(7, { inventoryType: 'onsite' });
    cache.set(key, 3, 120);
    expect(cache.get(key, 3)).toBe(120);
    expect(cache.get(key, 4)).toBeUndefined();
    expect(cache.has(key)).toBe(true);
  });

  it('keys by account and by every filter, whatever order the members came in', () => {
    expect(TemplateCountCache.key(7, { inventoryType: 'onsite', category: ['Pets'] })).toBe(
      TemplateCountCache.key(7, { category: ['Pets'], inventoryType: 'onsite' }),
    );
    expect(TemplateCountCache.key(7, { inventoryType: 'onsite' })).not.toBe(TemplateCountCache.key(8, { inventoryType: 'onsite' }));
    expect(TemplateCountCache.key(7, { category: ['Pets'] })).not.toBe(TemplateCountCache.key(7, { creativeStyle: ['Pets'] }));
    expect(TemplateCountCache.key(7, { isBookmarked: true })).not.toBe(TemplateCountCache.key(7, { isBookmarked: false }));
  });

  it('drops the least recently used entry when full', () => {
    const cache = new TemplateCountCache(2);
    cache.set('a', 1, 1);
    cache.set('b', 1, 2);
    expect(cache.get('a', 1)).toBe(1);
    cache.set('c', 1, 3);
    expect(cache.has('b')).toBe(false);
    expect([cache.get('a', 1), cache.get('c', 1)]).toEqual([1, 3]);
  });
});
