import { assertIdentifier, isValidIdentifier, schemaName } from './mysql.identifiers';

describe(isValidIdentifier.name, () => {
  it.each(['media', 'a', 'channels_plans', 't_1a2b3c_media', `a${'b'.repeat(63)}`])('accepts %s', (name) => {
    expect(isValidIdentifier(name)).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['uppercase', 'Media'],
    ['leading digit', '1media'],
    ['leading underscore', '_media'],
    ['hyphen', 'channels-plans'],
    ['backtick', 'media`; DROP DATABASE x; --'],
    ['quote', "media'"],
    ['space', 'media x'],
    ['dot', 'media.users'],
    ['65 characters', `a${'b'.repeat(64)}`],
    ['trailing newline', 'media\n'],
  ])('rejects %s', (_label, name) => {
    expect(isValidIdentifier(name)).toBe(false);
  });
});

describe(assertIdentifier.name, () => {
  it('returns a valid name unchanged', () => {
    expect(assertIdentifier('schema', 'media')).toBe('media');
  });

  it('names the role and the offending value in the error', () => {
    expect(() => assertIdentifier('user', 'Bad-Name')).toThrow(/Invalid MySQL user name "Bad-Name"/);
  });
});

describe(schemaName.name, () => {
  it('prepends the prefix', () => {
    expect(schemaName('t_ab12_', 'media')).toBe('t_ab12_media');
  });

  it('uses the base alone when the prefix is empty', () => {
    expect(schemaName('', 'media')).toBe('media');
  });

  it('validates the combined name', () => {
    expect(() => schemaName('1_', 'media')).toThrow(/Invalid MySQL schema name/);
    expect(() => schemaName('t_', 'x'.repeat(63))).toThrow(/Invalid MySQL schema name/);
  });
});
