import { AppError } from '@platform/errors';
import { CustomCodeSandbox, type CustomCodeOutcome, type SandboxLimits } from './custom-code.sandbox';

jest.setTimeout(60_000);

const LIMITS: SandboxLimits = { cpuMsPerRow: 2_000, memoryBytes: 48 << 20, maxLogLines: 200, maxInterruptedRows: 3 };

/** Runs rows through customCode, then disposes the sandbox: a handle left undisposed would abort the WebAssembly runtime there. */
async function runRows(customCode: string, rows: Record<string, string>[], limits = LIMITS): Promise<{ outcomes: CustomCodeOutcome[]; logs: string[] }> {
  const sandbox = await CustomCodeSandbox.compile(customCode, limits);
  const outcomes = rows.map((row, index) => sandbox.run(row, index + 2));
  const logs = sandbox.cdpLogs();
  expect(() => sandbox.dispose()).not.toThrow();
  return { outcomes, logs };
}

const failed = (reason: string | RegExp) => ({
  kind: 'failed',
  reason: typeof reason === 'string' ? `customCode failed: ${reason}` : expect.stringMatching(reason),
});

describe('customCode sandbox: rows it cannot turn into a row', () => {
  it('rejects a row that recurses too deeply with a clear reason, and runs the next rows', async () => {
    const code = 'function depth(n) { return n === 0 ? 0 : 1 + depth(n - 1); } row.depth = String(depth(Number(row.n))); return row;';
    const { outcomes, logs } = await runRows(code, [{ n: '100' }, { n: '3000' }, { n: '100000' }, { n: '10' }]);
    expect(outcomes).toEqual([
      { kind: 'row', values: { n: '100', depth: '100' } },
      failed(/too much recursion/),
      failed(/too much recursion/),
      { kind: 'row', values: { n: '10', depth: '10' } },
    ]);
    expect(logs).toEqual([
      expect.stringMatching(/^line 3: customCode failed: .*too much recursion/),
      expect.stringMatching(/^line 4: customCode failed: .*too much recursion/),
    ]);
  });

  it('rejects deep recursion through getters, toString, callbacks and console.log the same way', async () => {
    for (const code of [
      'let n = 0; const o = { get x() { n++; return this.x; } }; o.x; return row;',
      'const o = { toString() { return "" + o; } }; String(o); return row;',
      'function f(n) { return [n].map((x) => f(x + 1)); } f(0); return row;',
      'function f(n) { console.log(n); return f(n + 1); } f(0); return row;',
      'class A { constructor(n) { new A(n + 1); } } new A(0); return row;',
      'const p = new Proxy({}, { get(t, k) { return p[k]; } }); p.x; return row;',
    ]) {
      const sandbox = await CustomCodeSandbox.compile(code, { ...LIMITS, maxLogLines: 3 });
      expect([code, sandbox.run({ a: '1' }, 2)]).toEqual([code, failed(/too much recursion/)]);
      expect(() => sandbox.dispose()).not.toThrow();
    }
  });

  it('rejects a row whose nesting runs the host out of stack, and goes on with the rows after it', async () => {
    // Parsing deeply nested source in eval uses far more of the host's stack than of QuickJS's own.
    const code =
      'if (row.nest) eval("({a:".repeat(Number(row.nest)) + "1" + "})".repeat(Number(row.nest))); globalThis.seen = (globalThis.seen || 0) + 1; row.seen = String(seen); return row;';
    const { outcomes, logs } = await runRows(code, [{ nest: '' }, { nest: '20000' }, { nest: '' }, { nest: '' }]);
    expect(outcomes).toEqual([
      { kind: 'row', values: { nest: '', seen: '1' } },
      failed(/too much recursion or nesting/),
      // The sandbox was started again: what the code kept in globalThis is gone.
      { kind: 'row', values: { nest: '', seen: '1' } },
      { kind: 'row', values: { nest: '', seen: '2' } },
    ]);
    expect(logs).toEqual([expect.stringMatching(/^line 3: customCode failed: too much recursion or nesting/)]);
  });

  it('judges the code broken when the host runs out of stack again before a new sandbox is ready', async () => {
    const sandbox = await CustomCodeSandbox.compile('if (row.nest) eval("[".repeat(20000) + "]".repeat(20000)); return row;', LIMITS);
    expect(sandbox.run({ nest: '1' }, 2)).toEqual(failed(/too much recursion or nesting/));
    expect(sandbox.run({ nest: '' }, 3)).toEqual({ kind: 'row', values: { nest: '' } });
    // The next spare loads in the background: not while rows run one after the other.
    expect(() => sandbox.run({ nest: '1' }, 4)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
    expect(() => sandbox.dispose()).not.toThrow();
  });

  it('answers customCode nested too deeply to compile with a 400 at /customCode', async () => {
    const error = await CustomCodeSandbox.compile(`return ${'('.repeat(20_000)}row${')'.repeat(20_000)};`).then(
      () => undefined,
      (e: unknown) => e as AppError,
    );
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ pointer: '/customCode', code: 'INVALID_FORMAT' }] });
  });

  it('rejects a row whose code returns or throws a Promise: async code is not supported', async () => {
    for (const code of [
      'return Promise.resolve(row);',
      'return (async () => { row.x = "1"; return row; })();',
      'return (async () => { await null; row.x = "1"; return row; })();',
      'return new Promise(() => {});',
      'return Promise.reject(new Error("no"));',
      'throw Promise.resolve(1);',
    ]) {
      const { outcomes } = await runRows(`if (row.a === "ok") return row; ${code}`, [{ a: '1' }, { a: 'ok' }]);
      expect([code, outcomes]).toEqual([code, [failed(/Promise.*async code is not supported/), { kind: 'row', values: { a: 'ok' } }]]);
    }
  });

  it('rejects thrown values that are not errors, answers that are not objects, and answers that cannot be read', async () => {
    const cases: [string, string | RegExp][] = [
      ['throw "boom";', 'boom'],
      ['throw 42;', '42'],
      ['throw undefined;', 'undefined'],
      ['throw null;', 'null'],
      ['throw { code: 5 };', '{"code":5}'],
      ['throw Symbol("s");', 'Symbol(s)'],
      ['throw function f() {};', 'it threw a function'],
      ['throw new TypeError("bad");', 'TypeError: bad'],
      ['throw { get message() { throw new Error("again"); } };', 'it threw a value that cannot be read'],
      ['const e = new Error("x"); Object.defineProperty(e, "message", { get() { for (;;) {} } }); throw e;', 'it threw a value that cannot be read'],
      ['return function () {};', 'it returned a function instead of an object'],
      ['return Symbol("s");', 'it returned a symbol instead of an object'],
      ['return "x";', 'it returned a string instead of an object'],
      ['return 5n;', 'it returned a bigint instead of an object'],
      ['return true;', 'it returned a boolean instead of an object'],
      ['return [1];', 'it returned an array instead of an object'],
      ['return { get x() { throw new Error("getter"); } };', 'its answer cannot be read: Error: getter'],
      ['return { toJSON() { throw new RangeError("json"); } };', 'its answer cannot be read: RangeError: json'],
      ['const o = { a: 1 }; o.self = o; return o;', /^customCode failed: its answer cannot be read: TypeError: .*circular/],
      ['return { n: 10n };', /^customCode failed: its answer cannot be read: TypeError: .*BigInt/i],
      ['row.self = row;', /^customCode failed: its answer cannot be read: TypeError: .*circular/],
    ];
    for (const [code, reason] of cases) {
      const { outcomes } = await runRows(`if (row.a === "ok") return row; ${code}`, [{ a: '1' }, { a: 'ok' }]);
      expect([code, outcomes]).toEqual([code, [failed(reason), { kind: 'row', values: { a: 'ok' } }]]);
    }
  });

  it('runs the Promise jobs a row queued after its answer, so that they do not pile up to the memory cap', async () => {
    const limits = { ...LIMITS, memoryBytes: 24 << 20, cpuMsPerRow: 50, maxInterruptedRows: 2 };
    const code =
      'const kept = "x".repeat(20000) + row.n; Promise.resolve().then(() => { row.late = kept.length; if (row.n === "0") console.log("job ran"); if (row.n === "spin") for (;;) {} }); return row;';
    const sandbox = await CustomCodeSandbox.compile(code, limits);
    for (let n = 0; n < 2_000; n++) expect(sandbox.run({ n: String(n) }, n + 2)).toEqual({ kind: 'row', values: { n: String(n) } });
    // A job that runs past the row's CPU time stops the row like code of the row's own.
    expect(sandbox.run({ n: 'spin' }, 2_002)).toEqual(failed('it ran past its 50 ms of CPU time for one row'));
    expect(sandbox.run({ n: '1' }, 2_003)).toEqual({ kind: 'row', values: { n: '1' } });
    expect(sandbox.cdpLogs()).toEqual(['job ran', 'line 2002: customCode failed: it ran past its 50 ms of CPU time for one row']);
    expect(() => sandbox.dispose()).not.toThrow();
  });

  it('counts only rows stopped by the CPU budget as interrupted, not code that throws "interrupted" itself', async () => {
    const limits = { ...LIMITS, cpuMsPerRow: 30, maxInterruptedRows: 2 };
    const sandbox = await CustomCodeSandbox.compile(
      'if (row.a === "say") throw new Error("interrupted"); if (row.a === "loop") for (;;) {} return row;',
      limits,
    );
    for (const line of [2, 3, 4]) expect(sandbox.run({ a: 'say' }, line)).toEqual(failed('Error: interrupted'));
    expect(sandbox.run({ a: 'loop' }, 5)).toEqual(failed('it ran past its 30 ms of CPU time for one row'));
    expect(() => sandbox.run({ a: 'loop' }, 6)).toThrow(AppError);
    expect(() => sandbox.dispose()).not.toThrow();
  });
});
