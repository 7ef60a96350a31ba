import { ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { resolve } from 'node:path';

export const WORKSPACE_ROOT = resolve(__dirname, '../../../..');

/** Whether a process with this pid still exists (signal 0 checks without delivering anything). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A port free now, for a process a test starts and tells where to listen. Below Linux's ephemeral range
 * (see freePortBlock): a port the OS handed out for port 0 could be taken by another test's outgoing
 * connection before the process binds it, which failed a start with EADDRINUSE now and then.
 */
export function freePort(): Promise<number> {
  return freePortBlock(1);
}

/** Ports already handed out by this process: each stays free until its process binds it, so it is never handed out twice. */
const handedOut = new Set<number>();

const canListen = (port: number) =>
  new Promise<boolean>((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(port, '127.0.0.1', () => server.close(() => done(true)));
  });

/**
 * `count` consecutive free ports, for a process that derives several ports from one base (the
 * launcher's GRPC_PORT_BASE + offset). Chosen below Linux's ephemeral range (32768 and up), where
 * the OS's port-0 answers live: outgoing connections of other tests take ports from that range at any
 * moment, so a port inside it could be taken between this check and the bind.
 */
export async function freePortBlock(count: number, low = 10_000, high = 32_000): Promise<number> {
  for (let attempt = 0; high - low >= count && attempt < 100; attempt++) {
    const base = low + Math.floor(Math.random() * (high - low - count + 1));
    const ports = Array.from({ length: count }, (_, i) => base + i);
    if (ports.some((port) => handedOut.has(port))) continue;
    if ((await Promise.all(ports.map(canListen))).every(Boolean)) {
      for (const port of ports) handedOut.add(port);
      return base;
    }
  }
  throw new Error(`no ${count} consecutive free ports between ${low} and ${high}`);
}

/** Schema / stream prefix unique to one test run, so parallel suites never share state. */
export function uniquePrefix(tag: string): string {
  return `t${randomBytes(4).toString('hex')}_${tag.replace(/[^a-z0-9]/g, '')}_`;
}

export interface RunningProcess {
  name: string;
  child: ChildProcess;
  output(): string;
  /** Sends SIGTERM and resolves with the exit code (killing after the grace period). */
  stop(graceMs?: number): Promise<number | null>;
}

export interface StartProcessOptions {
  name: string;
  /** TypeScript entry point relative to the workspace root, run through tsx like `npm start` does. */
  entry: string;
  env: NodeJS.ProcessEnv;
  /** Resolves once a line of output matches. */
  ready: RegExp;
  /** Flags for node itself (V8 and runtime options that NODE_OPTIONS does not accept). */
  nodeArgs?: string[];
  /**
   * Write the process's stdout and stderr straight into this file instead of through a pipe this
   * process reads: a benchmark's load generator then does not pay for reading the services' logs.
   */
  logFile?: string;
  timeoutMs?: number;
}

/** Starts a real app process the way the launcher does and waits for its readiness line. */
export function startProcess({ name, entry, env, ready, nodeArgs = [], logFile, timeoutMs = 60_000 }: StartProcessOptions): Promise<RunningProcess> {
  const logFd = logFile === undefined ? undefined : openSync(logFile, 'w');
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', resolve(WORKSPACE_ROOT, entry)], {
    cwd: WORKSPACE_ROOT,
    env: { ...process.env, ...env },
    stdio: logFd === undefined ? ['ignore', 'pipe', 'pipe'] : ['ignore', logFd, logFd],
  });
  // The child holds its own copy of the descriptor.
  if (logFd !== undefined) closeSync(logFd);
  let piped = '';
  const output = () => (logFile === undefined ? piped : readFileSync(logFile, 'utf8'));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const handle: RunningProcess = {
    name,
    child,
    output,
    stop: async (graceMs = 10_000) => {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
  return new Promise((done, fail) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      clearInterval(poll);
      fail(new Error(`${name} did not become ready within ${timeoutMs} ms:\n${output().slice(-4000)}`));
    }, timeoutMs);
    const becameReady = () => {
      clearTimeout(timer);
      clearInterval(poll);
      done(handle);
    };
    const onData = (chunk: Buffer) => {
      piped += chunk.toString();
      if (ready.test(piped)) becameReady();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    // A log file is polled: nothing reads the child's output as it is written.
    const poll = setInterval(() => {
      if (logFile !== undefined && ready.test(output())) becameReady();
    }, 50);
    void exited.then((code) => {
      clearTimeout(timer);
      clearInterval(poll);
      fail(new Error(`${name} exited with code ${code} before becoming ready:\n${output().slice(-4000)}`));
    });
  });
}
