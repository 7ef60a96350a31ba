import { exceedsDepth } from './json-depth';

describe(exceedsDepth.name, () => {
  const nested = (depth: number) => {
    let value: unknown = { leaf: 1 };
    for (let i = 1; i < depth; i++) value = [value];
    return value;
  };

  it('counts objects and arrays, the outermost as 1', () => {
    expect(exceedsDepth(nested(3), 3)).toBe(false);
    expect(exceedsDepth(nested(4), 3)).toBe(true);
    expect(exceedsDepth({ a: 1, b: 'x' }, 1)).toBe(false);
  });

  it('measures a value nested far past the stack without overflowing', () => {
    expect(exceedsDepth(nested(200_000), 16)).toBe(true);
  });
});
