import { redactUrl } from './redact-url';

describe(redactUrl.name, () => {
  it('removes user and password, keeping everything else', () => {
    expect(redactUrl('https://feed-user:p%40ss@feeds.example:8443/a/b.xml?x=1#top')).toBe('https://feeds.example:8443/a/b.xml?x=1#top');
  });

  it('removes a user without password', () => {
    expect(redactUrl(new URL('ftp://anonymous@ftp.example/pub'))).toBe('ftp://ftp.example/pub');
  });

  it('shows nothing of a string that is not a URL, since it cannot tell where a password would be', () => {
    expect(redactUrl('http://user:secret@[not-a-url')).toBe('[unparseable URL]');
  });
});
