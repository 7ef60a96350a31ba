import { createServer } from 'node:net';
import { freePort, freePortBlock, uniquePrefix } from './processes';

describe('test process helpers', () => {
  it('hands out a bindable free port below the ephemeral range', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThanOrEqual(10_000);
    expect(port).toBeLessThan(32_000);
  });

  it('hands out a block of consecutive bindable ports below the ephemeral range', async () => {
    const base = await freePortBlock(9);
    expect(base).toBeGreaterThanOrEqual(10_000);
    expect(base + 9).toBeLessThanOrEqual(32_000);
    const servers = await Promise.all(
      Array.from(
        { length: 9 },
        (_, i) =>
          new Promise<ReturnType<typeof createServer>>((done, fail) => {
            const server = createServer();
            server.once('error', fail);
            server.listen(base + i, '127.0.0.1', () => done(server));
          }),
      ),
    );
    await Promise.all(servers.map((server) => new Promise((done) => server.close(done))));
  });

  it('refuses when no block that size fits', async () => {
    await expect(freePortBlock(10, 20_000, 20_005)).rejects.toThrow('no 10 consecutive free ports');
  });

  it('makes prefixes that are unique and safe as schema names', () => {
    const a = uniquePrefix('e2e');
    expect(a).toMatch(/^t[0-9a-f]{8}_e2e_$/);
    expect(uniquePrefix('e2e')).not.toBe(a);
  });
});
