import { AppError } from '@platform/errors';
import { CustomCodeSandbox } from './custom-code.sandbox';
import { CSV_FORMAT, httpFeedReader, httpLocation, readAll, startFeedHttpServer, type FeedHttpServer } from './feed-test-servers';

jest.setTimeout(30_000);

const errorOf = async (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as AppError,
  );

describe('customCode in the sandbox', () => {
  it('transforms a row in place or by returning an object, and drops it on null or false', async () => {
    const inPlace = await CustomCodeSandbox.compile('row.price = (Number(row.price) * 2).toFixed(2); row.sku = row.sku.toLowerCase();');
    expect(inPlace.run({ sku: 'A1', price: '2.5' }, 2)).toEqual({ kind: 'row', values: { sku: 'a1', price: '5.00' } });
    inPlace.dispose();
    const returning = await CustomCodeSandbox.compile('if (row.stock === "0") return null; return { id: row.sku, tags: [row.a, row.b], n: 3, none: null };');
    expect(returning.run({ sku: 'B', stock: '1', a: 'x', b: 'y' }, 3)).toEqual({ kind: 'row', values: { id: 'B', tags: '["x","y"]', n: '3', none: '' } });
    expect(returning.run({ sku: 'C', stock: '0' }, 4)).toEqual({ kind: 'dropped' });
    returning.dispose();
  });

  it('has no require, process, network or file system, and says so in cdpLogs', async () => {
    const probe = await CustomCodeSandbox.compile(
      'console.log(typeof require, typeof process, typeof fetch, typeof XMLHttpRequest, typeof setTimeout, typeof globalThis.os, typeof globalThis.std); return row;',
    );
    probe.run({ a: '1' }, 2);
    expect(probe.cdpLogs()).toEqual(['undefined undefined undefined undefined undefined undefined undefined']);
    const escape = await CustomCodeSandbox.compile('return { f: String(require("fs").readFileSync("/etc/passwd")) };');
    const outcome = escape.run({ a: '1' }, 7);
    expect(outcome).toEqual({ kind: 'failed', reason: expect.stringContaining('require') });
    expect(escape.cdpLogs()).toEqual([expect.stringMatching(/^line 7: customCode failed: .*require/)]);
    probe.dispose();
    escape.dispose();
  });

  it('stops a row that runs past its CPU time, and code that does so on row after row', async () => {
    const looping = await CustomCodeSandbox.compile('while (row.a === "loop") {} return row;', {
      cpuMsPerRow: 50,
      memoryBytes: 16 << 20,
      maxLogLines: 50,
      maxInterruptedRows: 3,
    });
    const started = Date.now();
    expect(looping.run({ a: 'loop' }, 2)).toEqual({ kind: 'failed', reason: 'customCode failed: it ran past its 50 ms of CPU time for one row' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(looping.run({ a: 'fine' }, 3)).toEqual({ kind: 'row', values: { a: 'fine' } });
    looping.run({ a: 'loop' }, 4);
    expect(() => looping.run({ a: 'loop' }, 5)).toThrow(AppError);
    looping.dispose();
  });

  it('stops a row that allocates past the memory cap', async () => {
    const limits = { cpuMsPerRow: 20_000, memoryBytes: 32 << 20, maxLogLines: 50, maxInterruptedRows: 3 };
    for (const allocation of ['"x".repeat(1e5) + a.length', 'new Array(1e4).fill(1)', 'new Uint8Array(1 << 20)', '({ n: a.length, s: "y" + a.length })']) {
      const hungry = await CustomCodeSandbox.compile(`if (row.a === "grow") { const a = []; for (;;) a.push(${allocation}); } return row;`, limits);
      expect(hungry.run({ a: 'grow' }, 2)).toEqual({ kind: 'failed', reason: expect.stringMatching(/out of memory/i) });
      // What the row held is collected: the next row runs.
      expect(hungry.run({ a: 'ok' }, 3)).toEqual({ kind: 'row', values: { a: 'ok' } });
      hungry.dispose();
    }
  });

  it('answers code that does not compile with a 400 at /customCode', async () => {
    const error = await errorOf(CustomCodeSandbox.compile('return {'));
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ pointer: '/customCode', code: 'INVALID_FORMAT' }] });
  });

  describe('over a feed', () => {
    let server: FeedHttpServer;
    beforeAll(async () => {
      server = await startFeedHttpServer((_req, res) => res.end('sku,price\nA,1\nB,x\nC,3\n'));
    });
    afterAll(() => server?.close());

    it('transforms every row, rejects the rows it throws on with their line, and keeps console output in cdpLogs', async () => {
      const customCode =
        'if (isNaN(Number(row.price))) throw new Error("bad price " + row.price); console.log("row", row.sku); return { sku: row.sku, cents: Number(row.price) * 100 };';
      const feed = await httpFeedReader([server.hostPort]).open(httpLocation(`${server.origin}/f.csv`), { ...CSV_FORMAT, cdp: true, customCode });
      const { all } = await readAll(feed);
      expect(all).toEqual([
        { line: 2, values: { sku: 'A', cents: '100' } },
        // The row as read goes along, for the health report to name its key.
        { line: 3, reason: 'customCode failed: Error: bad price x', asRead: { sku: 'B', price: 'x' } },
        { line: 4, values: { sku: 'C', cents: '300' } },
      ]);
      expect(feed.cdpLogs()).toEqual(['row A', 'line 3: customCode failed: Error: bad price x', 'row C']);
      expect(feed.config().cdpXpathMap).toEqual({ sku: 'sku', cents: 'cents' });
    });

    it('refuses cdp without customCode before fetching anything', async () => {
      const before = server.requests.length;
      const error = await errorOf(
        httpFeedReader([server.hostPort]).open(httpLocation(`${server.origin}/f.csv`), { ...CSV_FORMAT, cdp: true, customCode: '  ' }),
      );
      expect(error).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ pointer: '/customCode', code: 'REQUIRED' }] });
      expect(server.requests.length).toBe(before);
    });
  });
});
