import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { HopRequest } from './hop-request';
import { redirectTarget, requestAfterRedirect } from './redirects';

function responseWith(status: number, location?: string): IncomingMessage {
  const response = new IncomingMessage(new Socket());
  response.statusCode = status;
  if (location !== undefined) response.headers.location = location;
  return response;
}

describe(redirectTarget.name, () => {
  const current = new URL('https://feeds.example/v1/catalog/feed.xml?page=1');

  it.each([301, 302, 303, 307, 308])('follows %i', (status) => {
    expect(redirectTarget(responseWith(status, 'https://cdn.example/feed.xml'), current)?.href).toBe('https://cdn.example/feed.xml');
  });

  it.each([
    ['/v2/feed.xml', 'https://feeds.example/v2/feed.xml'],
    ['next.xml', 'https://feeds.example/v1/catalog/next.xml'],
    ['../other.xml', 'https://feeds.example/v1/other.xml'],
    ['?page=2', 'https://feeds.example/v1/catalog/feed.xml?page=2'],
    ['//mirror.example/feed.xml', 'https://mirror.example/feed.xml'],
  ])('resolves the relative Location %s against the current URL', (location, expected) => {
    expect(redirectTarget(responseWith(302, location), current)?.href).toBe(expected);
  });

  it.each([
    [200, '/elsewhere'],
    [300, '/choices'],
    [304, '/cached'],
    [302, undefined],
  ])('does not follow status %i with Location %s', (status, location) => {
    expect(redirectTarget(responseWith(status, location), current)).toBeUndefined();
  });

  it('reports an unparseable Location as OUTBOUND_INVALID_URL', () => {
    expect(() => redirectTarget(responseWith(302, 'http://[broken'), current)).toThrow(expect.objectContaining({ code: 'OUTBOUND_INVALID_URL' }));
  });
});

describe(requestAfterRedirect.name, () => {
  const post: HopRequest = {
    url: new URL('https://feeds.example/submit'),
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': '2', authorization: 'Bearer t', cookie: 'c=1', accept: '*/*' },
    body: Buffer.from('{}'),
  };

  it('turns a POST into a GET without body or body headers after 303', () => {
    const next = requestAfterRedirect(post, 303, new URL('https://feeds.example/result'));

    expect(next).toEqual({
      url: new URL('https://feeds.example/result'),
      method: 'GET',
      headers: { authorization: 'Bearer t', cookie: 'c=1', accept: '*/*' },
      body: undefined,
    });
  });

  it.each([301, 302])('turns a POST into a GET after %i, as browsers do', (status) => {
    expect(requestAfterRedirect(post, status, new URL('https://feeds.example/x')).method).toBe('GET');
  });

  it.each([307, 308])('repeats method and body after %i', (status) => {
    const next = requestAfterRedirect(post, status, new URL('https://feeds.example/x'));

    expect(next).toMatchObject({ method: 'POST', body: post.body, headers: post.headers });
  });

  it('keeps HEAD a HEAD after 303', () => {
    expect(requestAfterRedirect({ ...post, method: 'HEAD', body: undefined }, 303, new URL('https://feeds.example/x')).method).toBe('HEAD');
  });

  it('drops credentials and Host when the redirect leaves the origin', () => {
    const next = requestAfterRedirect({ ...post, headers: { ...post.headers, host: 'feeds.example' } }, 307, new URL('https://other.example/x'));

    expect(next.headers).toEqual({ 'content-type': 'application/json', 'content-length': '2', accept: '*/*' });
  });

  it('treats a change of scheme or port as leaving the origin', () => {
    expect(requestAfterRedirect(post, 307, new URL('http://feeds.example/x')).headers.authorization).toBeUndefined();
    expect(requestAfterRedirect(post, 307, new URL('https://feeds.example:8443/x')).headers.authorization).toBeUndefined();
  });
});
