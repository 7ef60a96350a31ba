import { ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface RunningChild {
  name: string;
  child: ChildProcess;
  exited: Promise<ChildExit>;
}

const COLORS = [36, 35, 33, 32, 34, 91, 92, 93, 94, 95];

/**
 * Runs one TypeScript entry point as its own node process (tsx loader) and prefixes each output
 * line with the app's name. Returns at once, so the caller tracks the process before it is ready.
 */
export function startChild(options: { name: string; entry: string; env: NodeJS.ProcessEnv; cwd: string; index: number }): RunningChild {
  const child = spawn(process.execPath, ['--import', 'tsx', options.entry], { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const color = COLORS[options.index % COLORS.length];
  const label = process.stdout.isTTY ? `\x1b[${color}m${options.name.padEnd(16)}\x1b[0m` : options.name.padEnd(16);
  for (const stream of [child.stdout, child.stderr]) {
    if (stream) createInterface({ input: stream }).on('line', (line) => process.stdout.write(`${label} | ${line}\n`));
  }
  return { name: options.name, child, exited: new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal }))) };
}

/**
 * Polls a readiness probe (gRPC health, an HTTP endpoint) rather than reading log lines, which a
 * quieter LOG_LEVEL would hide. Fails fast when the process exits first.
 */
export async function waitUntilReady(proc: RunningChild, probe: () => Promise<boolean>, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (hasExited(proc)) throw new Error(`${proc.name} exited (${describeExit(proc)}) before it was ready`);
    if (await probe().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${proc.name} was not ready after ${timeoutMs} ms`);
}

export const httpAnswers = (url: string) => async () => {
  const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
  return response.status < 500;
};

export const hasExited = (proc: RunningChild) => proc.child.exitCode !== null || proc.child.signalCode !== null;

const describeExit = (proc: RunningChild) => (proc.child.signalCode ? `signal ${proc.child.signalCode}` : `code ${proc.child.exitCode}`);
