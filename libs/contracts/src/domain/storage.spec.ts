import { ASSET_ALLOWED_EXTENSIONS, ASSET_PATH_MAX, assetExtension, assetFileNameViolation, assetPathViolation, joinAssetPath } from './storage';

describe(assetPathViolation.name, () => {
  it.each(['', 'images', 'images/2026/spring', 'a b/c-d_e.f', 'folder/', 'x'.repeat(ASSET_PATH_MAX), 'файлы/商品'])('accepts %j', (path) => {
    expect(assetPathViolation(path)).toBeUndefined();
  });

  it.each([
    ['a\u0000b', 1, 'PATH_NULL_BYTE'],
    ['a\nb', 1, 'PATH_CONTROL_CHARACTER'],
    ['a\u001fb', 1, 'PATH_CONTROL_CHARACTER'],
    ['a\tb', 1, 'PATH_CONTROL_CHARACTER'],
    ['a\u007fb', 2, 'PATH_DISALLOWED_CHARACTER'],
    ['a\u0085b', 2, 'PATH_DISALLOWED_CHARACTER'],
    ['a\u00a0b', 2, 'PATH_DISALLOWED_CHARACTER'],
    ['caf\u00e9', 2, 'PATH_DISALLOWED_CHARACTER'],
    ['a\u00ffb', 2, 'PATH_DISALLOWED_CHARACTER'],
    ['../etc', 3, 'PATH_TRAVERSAL'],
    ['a/../b', 3, 'PATH_TRAVERSAL'],
    ['a..b', 3, 'PATH_TRAVERSAL'],
    ['./a', 3, 'PATH_TRAVERSAL'],
    ['a/./b', 3, 'PATH_TRAVERSAL'],
    ['/abs', 4, 'PATH_ABSOLUTE'],
    ['a//b', 5, 'PATH_DOUBLE_SLASH'],
    ['x'.repeat(ASSET_PATH_MAX + 1), 6, 'PATH_TOO_LONG'],
  ])('refuses %j by rule %i (%s), naming the rule', (path, rule, code) => {
    const broken = assetPathViolation(path);
    expect(broken).toMatchObject({ rule, code });
    expect(broken?.detail).toMatch(new RegExp(`^Rule ${rule}: `));
  });

  it('counts characters, not UTF-16 units, against the length cap', () => {
    expect(assetPathViolation('😀'.repeat(ASSET_PATH_MAX))).toBeUndefined();
  });

  it('names the first rule broken when several are', () => {
    expect(assetPathViolation('/a//../\u0000')?.rule).toBe(1);
    expect(assetPathViolation('/a//..')?.rule).toBe(3);
  });
});

describe(assetFileNameViolation.name, () => {
  it.each(['logo.png', 'LOGO.PNG', 'banner.final.jpeg', 'fonts/brand.woff2', 'pack.zip'])('accepts %j', (name) => {
    expect(assetFileNameViolation(name)).toBeUndefined();
  });

  it.each([
    ['script.exe', '".exe"'],
    ['archive.tar.gz', '".gz"'],
    ['README', '(none)'],
    ['.png', '(none)'],
  ])('refuses %j by rule 7, naming the extension %s and listing the allowed ones', (name, named) => {
    const broken = assetFileNameViolation(name);
    expect(broken).toMatchObject({ rule: 7, code: 'EXTENSION_NOT_ALLOWED' });
    expect(broken?.detail).toContain(named);
    for (const extension of ASSET_ALLOWED_EXTENSIONS) expect(broken?.detail).toContain(extension);
  });

  it('applies rules 1 to 6 to a file name before the extension', () => {
    expect(assetFileNameViolation('../x.png')).toMatchObject({ rule: 3 });
    expect(assetFileNameViolation('/x.exe')).toMatchObject({ rule: 4 });
  });

  it('refuses an empty name or a folder', () => {
    expect(assetFileNameViolation('')).toMatchObject({ code: 'FILE_NAME_MISSING' });
    expect(assetFileNameViolation('dir/')).toMatchObject({ code: 'FILE_NAME_MISSING' });
  });
});

describe('path helpers', () => {
  it('reads the extension of the last segment only', () => {
    expect(assetExtension('a.b/c')).toBe('');
    expect(assetExtension('a/b.JPG')).toBe('jpg');
  });

  it('joins with exactly one slash', () => {
    expect(joinAssetPath('', 'a.png')).toBe('a.png');
    expect(joinAssetPath('x/y/', 'a.png')).toBe('x/y/a.png');
  });
});
