import type { Request } from 'express';
import { pageLinks } from './pagination';

const request = (originalUrl: string, host = 'api.local:8080') =>
  ({ originalUrl, protocol: 'http', get: (name: string) => (name === 'host' ? host : undefined) }) as unknown as Request;

describe(pageLinks.name, () => {
  it('links the adjacent pages with absolute URLs and keeps other parameters', () => {
    const links = pageLinks(request('/v2/x?limit=10&offset=10&q=a'), undefined, { offset: 10, limit: 10, total: 35 });
    expect(links).toEqual({ next: 'http://api.local:8080/v2/x?q=a&offset=20&limit=10', previous: 'http://api.local:8080/v2/x?q=a&offset=0&limit=10' });
  });

  it('has no previous on the first page and no next on the last', () => {
    expect(pageLinks(request('/v2/x'), undefined, { offset: 0, limit: 25, total: 25 })).toEqual({ next: null, previous: null });
    expect(pageLinks(request('/v2/x'), undefined, { offset: 20, limit: 25, total: 30 }).previous).toBe('http://api.local:8080/v2/x?offset=0&limit=25');
  });

  it('points previous at the last page with items, not another empty page, from a page at or past the end', () => {
    expect(pageLinks(request('/v2/x?offset=10&limit=2'), undefined, { offset: 10, limit: 2, total: 4 })).toEqual({
      next: null,
      previous: 'http://api.local:8080/v2/x?offset=2&limit=2',
    });
    expect(pageLinks(request('/v2/x'), undefined, { offset: 4, limit: 2, total: 4 }).previous).toBe('http://api.local:8080/v2/x?offset=2&limit=2');
    expect(pageLinks(request('/v2/x'), undefined, { offset: 7, limit: 3, total: 5 }).previous).toBe('http://api.local:8080/v2/x?offset=3&limit=3');
    expect(pageLinks(request('/v2/x'), undefined, { offset: 100, limit: 25, total: 1 }).previous).toBe('http://api.local:8080/v2/x?offset=0&limit=25');
  });

  it('has neither link on an empty list, at any offset', () => {
    expect(pageLinks(request('/v2/x'), undefined, { offset: 0, limit: 25, total: 0 })).toEqual({ next: null, previous: null });
    expect(pageLinks(request('/v2/x?offset=50'), undefined, { offset: 50, limit: 25, total: 0 })).toEqual({ next: null, previous: null });
  });

  it('uses PUBLIC_BASE_URL, including its path, when set', () => {
    const links = pageLinks(request('/v2/x?limit=5'), 'https://public.example/api/', { offset: 0, limit: 5, total: 6 });
    expect(links.next).toBe('https://public.example/api/v2/x?offset=5&limit=5');
  });
});
