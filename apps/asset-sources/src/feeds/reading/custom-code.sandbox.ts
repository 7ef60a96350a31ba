import releaseSync from '@jitl/quickjs-wasmfile-release-sync';
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from 'quickjs-emscripten';
import { AppError, validationFailed } from '@platform/errors';
import { threadCpuBudget } from './thread-cpu';

export interface SandboxLimits {
  /** CPU time of one row's run (and of compiling the code), in ms. */
  cpuMsPerRow: number;
  /** Memory of the whole sandbox (its WebAssembly heap, 16 MiB of which the engine starts with), in bytes. */
  memoryBytes: number;
  /** Lines of console output and errors kept for cdpLogs (the rest is dropped). */
  maxLogLines: number;
  /** Rows that may run out of time before the code is judged broken (and as many may run the host out of stack, see restart). */
  maxInterruptedRows: number;
}

const WASM_PAGE_BYTES = 64 * 1024;

// The project's TypeScript libs leave out the WebAssembly globals Node has.
const WasmMemory = (globalThis as unknown as { WebAssembly: { Memory: new (descriptor: { initial: number; maximum: number }) => object } }).WebAssembly.Memory;
/** The build's own starting heap (16 MiB): the sandbox's memory cap sits above it. */
const INITIAL_HEAP_PAGES = 256;

/**
 * A QuickJS instance of its own, on a WebAssembly memory that cannot grow past `memoryBytes`: an
 * allocation past it fails inside QuickJS ("out of memory"), whatever allocates (objects, strings,
 * typed arrays), where the runtime's own setMemoryLimit misses large strings on the prebuilt build.
 * The WebAssembly is loaded with require: the package's loader uses a dynamic import, which
 * CommonJS hosts such as jest refuse.
 */
function loadQuickJS(memoryBytes: number): Promise<QuickJSWASMModule> {
  const maximum = Math.max(INITIAL_HEAP_PAGES + 1, Math.floor(memoryBytes / WASM_PAGE_BYTES));
  const variant: QuickJSSyncVariant = {
    ...(releaseSync as QuickJSSyncVariant),
    importModuleLoader: async () => require('@jitl/quickjs-wasmfile-release-sync/emscripten-module') as never,
  };
  const wasmMemory = new WasmMemory({ initial: INITIAL_HEAP_PAGES, maximum });
  return newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmMemory: wasmMemory as never }));
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = { cpuMsPerRow: 100, memoryBytes: 48 * 1024 * 1024, maxLogLines: 200, maxInterruptedRows: 10 };

const MAX_LOG_LINE_CHARS = 1_000;

/**
 * QuickJS's own stack limit. QuickJS runs on the host's stack too (the WebAssembly's frames sit on node's,
 * about 1 MB) and takes more of it than of its own for every level: at 512 KiB a recursion of 3,000 levels
 * ran the host out first (a RangeError out of the WebAssembly, QuickJS left mid-call). At 64 KiB QuickJS
 * stops plain recursion at about 330 levels with three quarters of the host's stack left, and recursion
 * through getters, callbacks, toString, constructors, generators or console.log with as much; JSON of
 * values nested 4,000 deep with a quarter. What still reaches the host's limit (source nested hundreds deep
 * in eval: its parser takes little of QuickJS's stack and much of the host's) costs the row and a restart
 * of the sandbox (see CustomCodeSandbox.restart).
 */
const MAX_STACK_BYTES = 64 * 1024;

const ASYNC_NOT_SUPPORTED = 'async code is not supported: customCode must change the row, or return the row object, before it returns';

/** What customCode made of one row: new values, dropped (it answered null or false), or failed (why). */
export type CustomCodeOutcome = { kind: 'row'; values: Record<string, string> } | { kind: 'dropped' } | { kind: 'failed'; reason: string };

/** A row's run before the sandbox counts it: out of CPU time is judged over rows. */
type RowStep = CustomCodeOutcome | { kind: 'interrupted' };

/**
 * customCode, run per row in QuickJS compiled to WebAssembly: a separate heap with a memory cap and an
 * interrupt after a CPU deadline, and nothing but the language itself and a console (no require, no
 * network, no file system, no timers: none of them exist in there). The code is the body of
 * `function (row) { ... }`: it changes `row` in place or returns a new object; null or false drops the row.
 * It runs synchronously: a Promise it returns or throws (async code) rejects the row.
 *
 * Every handle a row takes is disposed once, whatever the row did. Should the host's own stack run out
 * inside QuickJS all the same, QuickJS is left in the middle of a call and cannot be freed (freeing its
 * runtime aborts the WebAssembly): the row is rejected, that instance is dropped whole, and the code is
 * started again on a spare WebAssembly instance loaded beforehand.
 */
export class CustomCodeSandbox {
  private readonly logs: string[] = [];
  private engine?: Engine;
  private spare?: QuickJSWASMModule;
  private interrupted = 0;
  private restarts = 0;
  private disposed = false;

  private constructor(
    private readonly customCode: string,
    private readonly limits: SandboxLimits,
  ) {}

  /** Compiles customCode; a syntax error is a 400 at /customCode. */
  static async compile(customCode: string, limits: SandboxLimits = DEFAULT_SANDBOX_LIMITS): Promise<CustomCodeSandbox> {
    const [quickjs, spare] = await Promise.all([loadQuickJS(limits.memoryBytes), loadQuickJS(limits.memoryBytes)]);
    const sandbox = new CustomCodeSandbox(customCode, limits);
    sandbox.engine = sandbox.start(quickjs);
    sandbox.spare = spare;
    return sandbox;
  }

  /** Runs the code over one row's values. */
  run(values: Record<string, string>, line: number): CustomCodeOutcome {
    const engine = this.engine;
    if (!engine) throw new Error('The customCode sandbox is disposed or broken.');
    const handles = new Handles();
    let step: RowStep;
    try {
      step = engine.transformRow(values, handles);
      handles.release();
    } catch (error) {
      return this.restart(line, error);
    }
    if (step.kind === 'failed') return this.fail(line, step.reason);
    if (step.kind !== 'interrupted') return step;
    // Code that runs out of time on row after row would take hours over a large feed: it is broken.
    if (++this.interrupted >= this.limits.maxInterruptedRows)
      throw validationFailed([
        { pointer: '/customCode', code: 'INVALID_FORMAT', detail: `customCode ran past ${this.limits.cpuMsPerRow} ms on ${this.interrupted} rows.` },
      ]);
    // QuickJS says only "InternalError: interrupted": say which limit stopped it.
    return this.fail(line, `it ran past its ${this.limits.cpuMsPerRow} ms of CPU time for one row`);
  }

  cdpLogs(): string[] {
    return [...this.logs];
  }

  dispose(): void {
    this.disposed = true;
    this.spare = undefined;
    const engine = this.engine;
    this.engine = undefined;
    engine?.dispose();
  }

  /** The code on a QuickJS instance of its own; a 400 at /customCode when it does not compile. */
  private start(quickjs: QuickJSWASMModule): Engine {
    try {
      return Engine.start(quickjs, this.customCode, this.limits, (line) => this.log(line));
    } catch (error) {
      if (error instanceof AppError) throw error;
      // The host's stack ran out while QuickJS read the code (source nested hundreds deep).
      throw validationFailed([{ pointer: '/customCode', code: 'INVALID_FORMAT', detail: `customCode does not compile: ${hostFailure(error)}` }]);
    }
  }

  /**
   * Something escaped QuickJS itself (the host's stack ran out in there, or the WebAssembly trapped):
   * QuickJS was left in the middle of a call, and freeing any of it would abort the WebAssembly runtime.
   * The instance is dropped whole (the garbage collector takes its memory with it), the row rejected,
   * and the code started again on the spare instance, another of which is then loaded. Should that
   * happen again before the next spare is ready, or on too many rows, the code is judged broken.
   */
  private restart(line: number, error: unknown): CustomCodeOutcome {
    this.engine = undefined;
    const failure = hostFailure(error);
    const spare = this.spare;
    this.spare = undefined;
    if (!spare || ++this.restarts > this.limits.maxInterruptedRows) {
      this.fail(line, failure);
      const detail = spare
        ? `customCode failed on ${this.restarts} rows with: ${failure}.`
        : `customCode failed on line ${line} with: ${failure}, again before its sandbox could be started anew.`;
      throw validationFailed([{ pointer: '/customCode', code: 'INVALID_FORMAT', detail }]);
    }
    const outcome = this.fail(line, `${failure} (the sandbox was started anew: what the code kept in globalThis is gone)`);
    this.engine = this.start(spare);
    loadQuickJS(this.limits.memoryBytes).then(
      (next) => {
        if (!this.disposed) this.spare = next;
      },
      () => undefined,
    );
    return outcome;
  }

  private fail(line: number, message: string): CustomCodeOutcome {
    const reason = `customCode failed: ${message}`;
    this.log(`line ${line}: ${reason}`);
    return { kind: 'failed', reason };
  }

  private log(line: string): void {
    if (this.logs.length < this.limits.maxLogLines) this.logs.push(line.slice(0, MAX_LOG_LINE_CHARS));
    else if (this.logs.length === this.limits.maxLogLines) this.logs.push('... further output is not kept');
  }
}

/** The handles one row takes, each disposed once when it is done (whatever QuickJS or the host disposed already is left be). */
class Handles {
  private readonly held: QuickJSHandle[] = [];

  own<T extends QuickJSHandle>(handle: T): T {
    this.held.push(handle);
    return handle;
  }

  release(): void {
    for (const handle of this.held.splice(0).reverse()) if (handle.alive) handle.dispose();
  }
}

/** What a QuickJS value is, as far as customCode's answers go: typeof, with null and Promise told apart from objects. */
type ValueKind = 'undefined' | 'null' | 'boolean' | 'number' | 'bigint' | 'string' | 'symbol' | 'function' | 'promise' | 'object';

/**
 * Describes a thrown value in the sandbox: `name: message` of an error, JSON of another object, or its
 * text; undefined when reading it throws. Made before customCode runs, with the JSON.stringify and
 * String it found, so that code changing them changes nothing here.
 */
const DESCRIBE_THROWN = `(function (String, stringify) {
  return function (error) {
    try {
      var message = error.message;
      if (typeof message === 'string') {
        var name = error.name;
        return typeof name === 'string' && name ? name + ': ' + message : message;
      }
      var json = stringify(error);
      return typeof json === 'string' ? json : String(error);
    } catch (e) {
      return undefined;
    }
  };
})(String, JSON.stringify)`;

/** One QuickJS runtime running the code, on a WebAssembly module of its own. */
class Engine {
  private transform?: QuickJSHandle;
  private parse?: QuickJSHandle;
  private stringify?: QuickJSHandle;
  private describe?: QuickJSHandle;
  /** Whether the interrupt handler stopped the code since the last budget(). */
  private interrupted = false;

  private constructor(
    private readonly runtime: QuickJSRuntime,
    private readonly vm: QuickJSContext,
    private readonly cpuMs: number,
  ) {}

  /**
   * QuickJS with a console, the helpers the rows use, and the code compiled (in that order: code at the
   * top level of customCode runs here). A 400 when it does not compile; an exception that escapes
   * QuickJS itself is thrown as is, the instance left be (see CustomCodeSandbox.restart).
   */
  static start(quickjs: QuickJSWASMModule, customCode: string, limits: SandboxLimits, write: (line: string) => void): Engine {
    const runtime = quickjs.newRuntime();
    runtime.setMemoryLimit(limits.memoryBytes);
    runtime.setMaxStackSize(MAX_STACK_BYTES);
    const engine = new Engine(runtime, runtime.newContext(), limits.cpuMsPerRow);
    const { vm } = engine;
    installConsole(vm, write);
    engine.budget();
    engine.parse = vm.unwrapResult(vm.evalCode('JSON.parse'));
    engine.stringify = vm.unwrapResult(vm.evalCode('JSON.stringify'));
    engine.describe = vm.unwrapResult(vm.evalCode(DESCRIBE_THROWN));
    const compiled = vm.evalCode(`(function (row) {\n${customCode}\n})`, 'customCode.js');
    if (compiled.error) {
      const handles = new Handles();
      handles.own(compiled.error);
      const message = engine.interrupted ? `it ran past its ${limits.cpuMsPerRow} ms of CPU time` : engine.describeThrown(compiled.error, handles);
      handles.release();
      engine.dispose();
      throw validationFailed([{ pointer: '/customCode', code: 'INVALID_FORMAT', detail: `customCode does not compile: ${message}` }]);
    }
    engine.transform = compiled.value;
    return engine;
  }

  /** One row through the code, every handle it takes in `handles`; then the Promise jobs it queued, on the same CPU budget. */
  transformRow(values: Record<string, string>, handles: Handles): RowStep {
    this.budget();
    const step = this.answer(values, handles);
    if (step.kind === 'interrupted') return step;
    const failure = this.runJobs(handles);
    if (step.kind === 'failed') return step;
    if (this.interrupted) return { kind: 'interrupted' };
    return failure === undefined ? step : { kind: 'failed', reason: `a Promise job it queued failed: ${failure}` };
  }

  /**
   * Runs the Promise jobs queued (a then callback, the rest of an async function), after the answer is
   * read: they change nothing of it, but left queued they would pile up row after row until the memory
   * cap. One at a time while the CPU budget lasts (a job may queue another for ever); what is left waits
   * for the next row. Answers what a failed job threw (a job's exception mostly rejects its promise instead).
   */
  private runJobs(handles: Handles): string | undefined {
    while (!this.interrupted) {
      const job = this.runtime.executePendingJobs(1);
      if (job.error) {
        handles.own(job.error);
        return this.interrupted ? undefined : this.describeThrown(job.error, handles);
      }
      if (job.value === 0) return undefined;
    }
    return undefined;
  }

  /** What the code answered for the row. */
  private answer(values: Record<string, string>, handles: Handles): RowStep {
    const { vm } = this;
    const input = this.call(this.parse, handles.own(vm.newString(JSON.stringify(values))), handles);
    // Whether the CPU budget stopped it is read first: describing what was thrown starts a budget of its own.
    if (input.error)
      return this.interrupted
        ? { kind: 'interrupted' }
        : { kind: 'failed', reason: `the row could not be handed to customCode: ${this.describeThrown(input.error, handles)}` };
    const answer = this.call(this.transform, input.value, handles);
    if (answer.error) return this.interrupted ? { kind: 'interrupted' } : { kind: 'failed', reason: this.describeThrown(answer.error, handles) };
    const kind = this.kindOf(answer.value);
    switch (kind) {
      case 'undefined':
        return this.read(input.value, handles);
      case 'null':
        return { kind: 'dropped' };
      case 'boolean':
        return vm.dump(answer.value) === false ? { kind: 'dropped' } : { kind: 'failed', reason: 'it returned a boolean instead of an object' };
      case 'object':
        return this.read(answer.value, handles);
      case 'promise':
        return { kind: 'failed', reason: `it returned a Promise: ${ASYNC_NOT_SUPPORTED}` };
      default:
        return { kind: 'failed', reason: `it returned a ${kind} instead of an object` };
    }
  }

  /**
   * What a thrown value says: an error's name and message, another object's JSON, a primitive's text.
   * Reading an object runs code of its own (getters, toJSON), under a CPU budget of its own.
   */
  describeThrown(thrown: QuickJSHandle, handles: Handles): string {
    const { vm } = this;
    const kind = this.kindOf(thrown);
    switch (kind) {
      case 'string':
        return vm.getString(thrown);
      case 'symbol':
        return String(vm.getSymbol(thrown));
      case 'function':
        return 'it threw a function';
      case 'promise':
        return `it threw a Promise: ${ASYNC_NOT_SUPPORTED}`;
      case 'object': {
        this.budget();
        const text = this.call(this.describe, thrown, handles);
        if (text.error || vm.typeof(text.value) !== 'string') return 'it threw a value that cannot be read';
        const message = vm.getString(text.value);
        // QuickJS's own stack limit (MAX_STACK_BYTES): InternalError, or SyntaxError from its parser.
        return /^\w*Error: stack overflow$/.test(message) ? `${message} (too much recursion or nesting)` : message;
      }
      default:
        return String(vm.dump(thrown));
    }
  }

  dispose(): void {
    for (const handle of [this.transform, this.describe, this.stringify, this.parse]) if (handle?.alive) handle.dispose();
    this.vm.dispose();
    this.runtime.dispose();
  }

  /** Gives the code a fresh CPU budget from now. */
  private budget(): void {
    const spent = threadCpuBudget(this.cpuMs);
    this.interrupted = false;
    this.runtime.setInterruptHandler(() => {
      if (spent()) this.interrupted = true;
      return this.interrupted;
    });
  }

  private call(fn: QuickJSHandle | undefined, arg: QuickJSHandle, handles: Handles): { value: QuickJSHandle; error?: undefined } | { error: QuickJSHandle } {
    const result = this.vm.callFunction(fn as QuickJSHandle, this.vm.undefined, arg);
    return result.error ? { error: handles.own(result.error) } : { value: handles.own(result.value) };
  }

  /** The row the code answered, as JSON read back on this side. */
  private read(answer: QuickJSHandle, handles: Handles): RowStep {
    const { vm } = this;
    const json = this.call(this.stringify, answer, handles);
    if (json.error) {
      const interrupted = this.interrupted;
      const reason = `its answer cannot be read: ${this.describeThrown(json.error, handles)}`;
      return interrupted ? { kind: 'interrupted' } : { kind: 'failed', reason };
    }
    if (vm.typeof(json.value) !== 'string') return { kind: 'failed', reason: 'its answer cannot be read: it has no JSON' };
    const produced: unknown = JSON.parse(vm.getString(json.value));
    if (typeof produced !== 'object' || produced === null || Array.isArray(produced))
      return {
        kind: 'failed',
        reason: `it returned ${Array.isArray(produced) ? 'an array' : 'an object whose JSON is not an object'} instead of an object`,
      };
    return { kind: 'row', values: textValues(produced as Record<string, unknown>) };
  }

  private kindOf(handle: QuickJSHandle): ValueKind {
    const { vm } = this;
    const type = vm.typeof(handle);
    if (type !== 'object') return type as ValueKind;
    if (vm.sameValue(handle, vm.null)) return 'null';
    return isPromise(vm, handle) ? 'promise' : 'object';
  }
}

/** Whether a value is a Promise, disposing what reading its state gave (its result), never the value itself. */
function isPromise(vm: QuickJSContext, handle: QuickJSHandle): boolean {
  const state = vm.getPromiseState(handle);
  if (state.type === 'fulfilled') {
    if (state.notAPromise) return false;
    state.value.dispose();
  } else if (state.type === 'rejected') state.error.dispose();
  return true;
}

/** What escaped QuickJS, for the row's reason. */
function hostFailure(error: unknown): string {
  if (error instanceof RangeError) return 'too much recursion or nesting: the stack ran out';
  return `the sandbox broke down (${error instanceof Error ? error.message : String(error)})`;
}

function installConsole(vm: QuickJSContext, write: (line: string) => void): void {
  const consoleObject = vm.newObject();
  for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
    const fn = vm.newFunction(level, (...args) => {
      const text = args.map((arg) => formatValue(vm.dump(arg))).join(' ');
      write(level === 'log' || level === 'info' || level === 'debug' ? text : `${level}: ${text}`);
    });
    vm.setProp(consoleObject, level, fn);
    fn.dispose();
  }
  vm.setProp(vm.global, 'console', consoleObject);
  consoleObject.dispose();
}

function formatValue(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Row values are text: scalars as they print, objects and arrays as JSON, null and undefined as empty. */
function textValues(produced: Record<string, unknown>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(produced)) {
    values[name] = value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
  return values;
}
