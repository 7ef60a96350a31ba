import { redactUrl } from './redact-url';

describe(redactUrl.name, () => {
  it('removes user, password, query and fragment, keeping scheme, host, port and path', () => {
    expect(redactUrl('https://feed-user:p%40ss@feeds.example:8443/a/b.xml?x=1#top')).toBe('https://feeds.example:8443/a/b.xml');
  });

  it("removes a presigned URL's credential and signature, and a key in the query", () => {
    const signed = 'http://127.0.0.1:9000/feeds/p.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAEXAMPLE%2F20261130&X-Amz-Signature=f005ba11';
    expect(redactUrl(signed)).toBe('http://127.0.0.1:9000/feeds/p.csv');
    expect(redactUrl('https://feeds.example/p.csv?api_key=SUPERSECRET')).not.toContain('SUPERSECRET');
  });

  it('removes a user without password', () => {
    expect(redactUrl(new URL('ftp://anonymous@ftp.example/pub'))).toBe('ftp://ftp.example/pub');
  });

  it('shows nothing of a string that is not a URL, since it cannot tell where a password would be', () => {
    expect(redactUrl('http://user:secret@[not-a-url')).toBe('[unparseable URL]');
  });
});
