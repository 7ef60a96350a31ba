import { freePort, uniquePrefix } from './processes';

describe('test process helpers', () => {
  it('hands out a bindable free port', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(0);
    expect(port).toBeLessThan(65536);
  });

  it('makes prefixes that are unique and safe as schema names', () => {
    const a = uniquePrefix('e2e');
    expect(a).toMatch(/^t[0-9a-f]{8}_e2e_$/);
    expect(uniquePrefix('e2e')).not.toBe(a);
  });
});
