import { Allowlist, effectivePort, normalizeAllowlistEntry, parseAllowlist } from './allowlist';

describe(parseAllowlist.name, () => {
  it('reads nothing from an unset or empty variable', () => {
    expect(parseAllowlist(undefined)).toEqual([]);
    expect(parseAllowlist('')).toEqual([]);
    expect(parseAllowlist(' , ')).toEqual([]);
  });

  it('splits on commas, trims, and normalizes each host the way URLs spell it', () => {
    expect(parseAllowlist(' 127.0.0.1:9000, Feeds.Example.COM:8443 ,[0:0::1]:80,2130706433:81,')).toEqual([
      '127.0.0.1:9000',
      'feeds.example.com:8443',
      '[::1]:80',
      '127.0.0.1:81',
    ]);
  });

  it.each([
    ['feeds.example.com', 'not of the form host:port'],
    ['feeds.example.com:', 'not of the form host:port'],
    [':8080', 'not of the form host:port'],
    ['http://feeds.example.com:80', 'not of the form host:port'],
    ['::1:80', 'not of the form host:port'],
    ['user@host:80', 'not of the form host:port'],
    ['feeds example.com:80', 'not of the form host:port'],
    ['host:abc', 'not of the form host:port'],
    ['host:0', 'outside 1-65535'],
    ['host:65536', 'outside 1-65535'],
    ['[zz::1]:80', 'not of the form host:port'],
    ['[1::2::3]:80', 'invalid host'],
  ])('rejects %s', (entry, problem) => {
    expect(() => parseAllowlist(`127.0.0.1:1,${entry}`)).toThrow(problem);
  });
});

describe(Allowlist.name, () => {
  const sut = new Allowlist(['127.0.0.1:8080', 'minio.internal:9000', 'on-prem.example:443', '[::1]:80']);

  it('permits exactly the listed host and port', () => {
    expect(sut.permits(new URL('http://127.0.0.1:8080/feed'))).toBe(true);
    expect(sut.permits(new URL('http://MINIO.internal:9000/bucket'))).toBe(true);
    expect(sut.permits(new URL('http://[::1]/'))).toBe(true);
  });

  it('uses the scheme default port when the URL names none', () => {
    expect(sut.permits(new URL('https://on-prem.example/feed.xml'))).toBe(true);
    expect(sut.permits(new URL('http://on-prem.example/feed.xml'))).toBe(false);
  });

  it('does not permit another port, another host, or another spelling that resolves elsewhere', () => {
    expect(sut.permits(new URL('http://127.0.0.1:8081/'))).toBe(false);
    expect(sut.permits(new URL('http://127.0.0.2:8080/'))).toBe(false);
    expect(sut.permits(new URL('http://localhost:8080/'))).toBe(false);
    expect(sut.permits(new URL('http://sub.minio.internal:9000/'))).toBe(false);
  });

  it('rejects a malformed entry at construction', () => {
    expect(() => new Allowlist(['no-port'])).toThrow('not of the form host:port');
  });
});

describe(normalizeAllowlistEntry.name, () => {
  it('normalizes hex and octal IPv4 spellings to the dotted form URLs use', () => {
    expect(normalizeAllowlistEntry('0x7f000001:80')).toBe('127.0.0.1:80');
    expect(normalizeAllowlistEntry('0177.0.0.1:80')).toBe('127.0.0.1:80');
  });
});

describe(effectivePort.name, () => {
  it('is the explicit port or the scheme default', () => {
    expect(effectivePort(new URL('http://a.example/'))).toBe(80);
    expect(effectivePort(new URL('https://a.example/'))).toBe(443);
    expect(effectivePort(new URL('https://a.example:8443/'))).toBe(8443);
  });
});
