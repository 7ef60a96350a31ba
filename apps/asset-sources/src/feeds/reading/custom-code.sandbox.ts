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
import { validationFailed } from '@platform/errors';
import { threadCpuBudget } from './thread-cpu';

export interface SandboxLimits {
  /** CPU time of one row's run (and of compiling the code), in ms. */
  cpuMsPerRow: number;
  /** Memory of the whole sandbox (its WebAssembly heap, 16 MiB of which the engine starts with), in bytes. */
  memoryBytes: number;
  /** Lines of console output and errors kept for cdpLogs (the rest is dropped). */
  maxLogLines: number;
  /** Rows that may run out of time before the code is judged broken. */
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

/** What customCode made of one row: new values, dropped (it answered null or false), or failed (why). */
export type CustomCodeOutcome = { kind: 'row'; values: Record<string, string> } | { kind: 'dropped' } | { kind: 'failed'; reason: string };

/**
 * customCode, run per row in QuickJS compiled to WebAssembly: a separate heap with a memory cap and an
 * interrupt after a CPU deadline, and nothing but the language itself and a console (no require, no
 * network, no file system, no timers: none of them exist in there). The code is the body of
 * `function (row) { ... }`: it changes `row` in place or returns a new object; null or false drops the row.
 */
export class CustomCodeSandbox {
  private readonly logs: string[] = [];
  private transform?: QuickJSHandle;
  private interrupted = 0;

  private constructor(
    private readonly runtime: QuickJSRuntime,
    private readonly vm: QuickJSContext,
    private readonly limits: SandboxLimits,
  ) {}

  /** Compiles customCode; a syntax error is a 400 at /customCode. */
  static async compile(customCode: string, limits: SandboxLimits = DEFAULT_SANDBOX_LIMITS): Promise<CustomCodeSandbox> {
    const quickjs = await loadQuickJS(limits.memoryBytes);
    const runtime = quickjs.newRuntime();
    runtime.setMemoryLimit(limits.memoryBytes);
    runtime.setMaxStackSize(512 * 1024);
    const vm = runtime.newContext();
    const sandbox = new CustomCodeSandbox(runtime, vm, limits);
    installConsole(vm, (line) => sandbox.log(line));
    runtime.setInterruptHandler(threadCpuBudget(limits.cpuMsPerRow));
    const compiled = vm.evalCode(`(function (row) {\n${customCode}\n})`, 'customCode.js');
    if (compiled.error) {
      const message = describeError(vm.dump(compiled.error));
      compiled.error.dispose();
      vm.dispose();
      runtime.dispose();
      throw validationFailed([{ pointer: '/customCode', code: 'INVALID_FORMAT', detail: `customCode does not compile: ${message}` }]);
    }
    sandbox.transform = compiled.value;
    return sandbox;
  }

  /** Runs the code over one row's values. */
  run(values: Record<string, string>, line: number): CustomCodeOutcome {
    const { vm, runtime } = this;
    runtime.setInterruptHandler(threadCpuBudget(this.limits.cpuMsPerRow));
    const input = vm.evalCode(`(${JSON.stringify(values)})`);
    if (input.error) {
      input.error.dispose();
      return this.fail(line, 'the row could not be handed to customCode');
    }
    const result = vm.callFunction(this.transform as QuickJSHandle, vm.undefined, input.value);
    try {
      if (result.error) {
        const message = describeError(vm.dump(result.error));
        result.error.dispose();
        // Code that runs out of time on row after row would take hours over a large feed: it is broken.
        if (!/interrupted/i.test(message)) return this.fail(line, message);
        if (++this.interrupted >= this.limits.maxInterruptedRows)
          throw validationFailed([
            { pointer: '/customCode', code: 'INVALID_FORMAT', detail: `customCode ran past ${this.limits.cpuMsPerRow} ms on ${this.interrupted} rows.` },
          ]);
        // QuickJS says only "InternalError: interrupted": say which limit stopped it.
        return this.fail(line, `it ran past its ${this.limits.cpuMsPerRow} ms of CPU time for one row`);
      }
      const answer: unknown = vm.dump(result.value);
      result.value.dispose();
      if (answer === null || answer === false) return { kind: 'dropped' };
      const produced = answer === undefined ? vm.dump(input.value) : answer;
      if (typeof produced !== 'object' || produced === null || Array.isArray(produced))
        return this.fail(line, 'customCode returned something other than an object');
      return { kind: 'row', values: textValues(produced as Record<string, unknown>) };
    } finally {
      input.value.dispose();
    }
  }

  cdpLogs(): string[] {
    return [...this.logs];
  }

  dispose(): void {
    this.transform?.dispose();
    this.vm.dispose();
    this.runtime.dispose();
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

function describeError(dumped: unknown): string {
  if (dumped && typeof dumped === 'object') {
    const { name, message } = dumped as { name?: unknown; message?: unknown };
    if (typeof message === 'string') return typeof name === 'string' && name ? `${name}: ${message}` : message;
  }
  return formatValue(dumped);
}

/** Row values are text: scalars as they print, objects and arrays as JSON, null and undefined as empty. */
function textValues(produced: Record<string, unknown>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(produced)) {
    values[name] = value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
  return values;
}
