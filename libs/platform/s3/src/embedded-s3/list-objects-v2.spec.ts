import { compareKeys } from '../key-order';
import { decodeContinuationToken, encodeContinuationToken, selectListObjectsV2, type ListObjectsV2Query } from './list-objects-v2';

const KEYS = ['p/a', 'p/a-b', 'p/a.txt', 'p/a/1', 'p/a/2', 'p/b', 'p/c/1', 'p/c/d/2', 'q/other'].sort(compareKeys);

function query(overrides: Partial<ListObjectsV2Query>): ListObjectsV2Query {
  return { prefix: 'p/', delimiter: '/', startAfter: '', maxKeys: 1000, ...overrides };
}

describe(selectListObjectsV2.name, () => {
  it('rolls keys below the delimiter into common prefixes and keeps other prefixes out', () => {
    expect(selectListObjectsV2(KEYS, query({}))).toEqual({
      keys: ['p/a', 'p/a-b', 'p/a.txt', 'p/b'],
      commonPrefixes: ['p/a/', 'p/c/'],
      isTruncated: false,
    });
  });

  it('counts keys and common prefixes together against max-keys', () => {
    const page = selectListObjectsV2(KEYS, query({ maxKeys: 4 }));
    expect(page).toEqual({
      keys: ['p/a', 'p/a-b', 'p/a.txt'],
      commonPrefixes: ['p/a/'],
      isTruncated: true,
      next: { key: 'p/a/', isCommonPrefix: true },
    });
  });

  it('continues after a common prefix without repeating it', () => {
    const page = selectListObjectsV2(KEYS, query({ maxKeys: 4, continueAfter: { key: 'p/a/', isCommonPrefix: true } }));
    expect(page.keys).toEqual(['p/b']);
    expect(page.commonPrefixes).toEqual(['p/c/']);
  });

  it('repeats a common prefix after start-after=<that prefix>, as S3 does', () => {
    expect(selectListObjectsV2(KEYS, query({ startAfter: 'p/a/' })).commonPrefixes).toEqual(['p/a/', 'p/c/']);
  });

  it('lists every key under the prefix without a delimiter', () => {
    expect(selectListObjectsV2(KEYS, query({ delimiter: '' })).keys).toEqual(KEYS.filter((key) => key.startsWith('p/')));
  });
});

describe('continuation tokens', () => {
  it('round-trip a position and refuse foreign tokens', () => {
    const position = { key: 'accounts/7/ü+%/', isCommonPrefix: true };
    expect(decodeContinuationToken(encodeContinuationToken(position))).toEqual(position);
    expect(decodeContinuationToken('1Px8rA==')).toBeUndefined();
    expect(decodeContinuationToken(Buffer.from('{"k":1}').toString('base64url'))).toBeUndefined();
  });
});
