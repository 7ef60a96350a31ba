import { accountKey, validateDelimiter, validateObjectKey, validatePrefix } from './object-key';
import { InvalidObjectKeyError } from './object-store.errors';

describe(validateObjectKey.name, () => {
  it.each(['a', 'accounts/7/library/photo 1+2%.png', 'folder/', 'a.b/c-d_e~f', 'ünïcødé/名前.png'])('accepts %j', (key) => {
    expect(validateObjectKey(key)).toBe(key);
  });

  it.each([
    ['', /non-empty/],
    ['/etc/passwd', /must not start with "\/"/],
    ['accounts/7/../8/x', /must not contain "\.\."/],
    ['a..b', /must not contain "\.\."/],
    ['a//b', /must not contain "\/\/"/],
    ['a\u0000b', /control characters/],
    ['line\nbreak', /control characters/],
    ['del\u007f', /control characters/],
    ['x'.repeat(1025), /at most 1024 bytes/],
    ['é'.repeat(513), /at most 1024 bytes/],
  ])('refuses %j', (key, reason) => {
    expect(() => validateObjectKey(key)).toThrow(InvalidObjectKeyError);
    expect(() => validateObjectKey(key)).toThrow(reason);
  });

  it('escapes control characters in the error message', () => {
    expect(() => validateObjectKey('a\nb')).toThrow('Invalid object key "a\\nb"');
  });
});

describe(validatePrefix.name, () => {
  it('allows the empty prefix only where asked', () => {
    expect(validatePrefix('', { allowEmpty: true })).toBe('');
    expect(() => validatePrefix('', { allowEmpty: false })).toThrow(/whole bucket/);
  });

  it('applies the key rules to non-empty prefixes', () => {
    expect(() => validatePrefix('../', { allowEmpty: true })).toThrow(InvalidObjectKeyError);
  });
});

describe(validateDelimiter.name, () => {
  it('accepts the empty and usual delimiters and refuses control characters', () => {
    expect(validateDelimiter('')).toBe('');
    expect(validateDelimiter('/')).toBe('/');
    expect(() => validateDelimiter('\t')).toThrow(InvalidObjectKeyError);
  });
});

describe(accountKey.name, () => {
  it('lays keys out under accounts/<accountId>/', () => {
    expect(accountKey(42, 'library', 'logo.png')).toBe('accounts/42/library/logo.png');
    expect(accountKey(42, 'exports/2024/job-1.zip')).toBe('accounts/42/exports/2024/job-1.zip');
  });

  it('returns the account prefix when given no parts', () => {
    expect(accountKey(42)).toBe('accounts/42/');
  });

  it.each([-1, 1.5, Number.NaN, 2 ** 60])('refuses account id %p', (accountId) => {
    expect(() => accountKey(accountId, 'x')).toThrow(/accountId must be a non-negative integer/);
  });

  it('refuses empty parts and parts that would escape the account', () => {
    expect(() => accountKey(1, 'library', '', 'x')).toThrow(/part 2 is empty/);
    expect(() => accountKey(1, '..', 'x')).toThrow(InvalidObjectKeyError);
    expect(() => accountKey(1, '/x')).toThrow(InvalidObjectKeyError);
  });
});
