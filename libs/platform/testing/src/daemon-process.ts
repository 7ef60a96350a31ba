import { ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, closeSync, openSync, readFileSync } from 'node:fs';
import { isProcessAlive } from './processes';

/** A synchronous 5 ms sleep for pause()'s wait (Atomics.wait on a value nobody changes). */
const SLEEPER = new Int32Array(new SharedArrayBuffer(4));

/** The state letter of /proc/<pid>/stat (R, S, T for stopped, ...); undefined once the process is gone. */
function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The name field is in parentheses and may hold spaces: the state follows the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return undefined;
  }
}

export interface DaemonSpec {
  /** For messages: `mariadbd`, `nats-server`. */
  name: string;
  command: string;
  args: string[];
  /** Everything the daemon writes goes here (appended across restarts). */
  logFile: string;
  /** Resolves once the daemon serves; called after each start. Rejecting fails the start. */
  waitUntilReady: (daemon: { output(): string; exited(): boolean }) => Promise<void>;
  startTimeoutMs?: number;
}

/**
 * One external server a test started and owns (a private MariaDB, a private NATS): started, stopped,
 * killed, paused and resumed by the pid this object spawned and by nothing else, so a test can fail
 * a dependency without touching any other process on the machine.
 */
export class DaemonProcess {
  private child: ChildProcess | undefined;
  private exit: Promise<void> = Promise.resolve();

  constructor(private readonly spec: DaemonSpec) {}

  /** The pid of the running daemon, or undefined while it is down. */
  get pid(): number | undefined {
    return this.child?.exitCode === null && this.child.signalCode === null ? this.child.pid : undefined;
  }

  get running(): boolean {
    return this.pid !== undefined;
  }

  output(): string {
    try {
      return readFileSync(this.spec.logFile, 'utf8');
    } catch {
      return '';
    }
  }

  /** Starts the daemon (again, after a stop or a kill: same arguments, same data) and waits until it serves. */
  async start(): Promise<void> {
    if (this.running) throw new Error(`${this.spec.name} is already running (pid ${this.pid})`);
    appendFileSync(this.spec.logFile, `--- test harness: starting ${this.spec.name} at ${new Date().toISOString()}\n`);
    const logFd = openSync(this.spec.logFile, 'a');
    const child = spawn(this.spec.command, this.spec.args, { stdio: ['ignore', logFd, logFd] });
    closeSync(logFd);
    this.child = child;
    liveDaemons.add(child);
    let exited = false;
    this.exit = new Promise((done) =>
      child.once('exit', () => {
        exited = true;
        liveDaemons.delete(child);
        done();
      }),
    );
    child.once('error', () => undefined);
    const timeoutMs = this.spec.startTimeoutMs ?? 60_000;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.spec.waitUntilReady({ output: () => this.output(), exited: () => exited }),
        this.exit.then(() => {
          throw new Error(`${this.spec.name} exited before it was ready`);
        }),
        new Promise((_, fail) => {
          timer = setTimeout(() => fail(new Error(`${this.spec.name} was not ready within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
    } catch (error) {
      await this.kill();
      throw new Error(`${(error as Error).message}; its log (${this.spec.logFile}) ends:\n${this.output().slice(-3000)}`);
    } finally {
      clearTimeout(timer);
    }
  }

  /** SIGTERM (a clean shutdown) and waits for the exit, killing after the grace period. */
  async stop(graceMs = 30_000): Promise<void> {
    await this.signalAndWait('SIGTERM', graceMs);
  }

  /** SIGKILL, as a crash or an OOM kill would end it, and waits for the exit. */
  async kill(): Promise<void> {
    await this.signalAndWait('SIGKILL', 0);
  }

  /**
   * SIGSTOP: the daemon keeps its sockets but answers nothing until resumed (a hung dependency). kill() only
   * queues the signal, so this returns once the kernel reports the process stopped (at most a second): a
   * request sent next can no longer be answered by a daemon that had not stopped yet.
   */
  pause(): void {
    this.signal('SIGSTOP');
    const pid = this.pid as number;
    const deadline = Date.now() + 1_000;
    while (processState(pid) !== 'T' && Date.now() < deadline) Atomics.wait(SLEEPER, 0, 0, 5);
  }

  resume(): void {
    this.signal('SIGCONT');
  }

  private signal(signal: NodeJS.Signals): void {
    const pid = this.pid;
    if (pid === undefined) throw new Error(`${this.spec.name} is not running`);
    process.kill(pid, signal);
  }

  private async signalAndWait(signal: NodeJS.Signals, graceMs: number): Promise<void> {
    const child = this.child;
    const pid = this.pid;
    if (child === undefined || pid === undefined) return;
    // A paused daemon would hold on to SIGTERM until resumed.
    process.kill(pid, 'SIGCONT');
    process.kill(pid, signal);
    const timer = signal === 'SIGKILL' ? undefined : setTimeout(() => isProcessAlive(pid) && process.kill(pid, 'SIGKILL'), graceMs);
    await this.exit;
    clearTimeout(timer);
  }
}

/**
 * Daemons still running when the test process exits (a failed beforeAll, an interrupted run) are
 * killed then, so a private server never outlives the test that started it.
 */
const liveDaemons = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of liveDaemons) child.kill('SIGKILL');
});

/** Polls `check` until it resolves true; rejects when the daemon exits first. */
export async function pollUntil(check: () => Promise<boolean>, daemon: { exited(): boolean }, intervalMs = 100): Promise<void> {
  while (!daemon.exited()) {
    if (await check().catch(() => false)) return;
    await new Promise((done) => setTimeout(done, intervalMs));
  }
  throw new Error('the daemon exited before it was ready');
}
