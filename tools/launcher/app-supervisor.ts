import { ChildExit, hasExited, RunningChild, waitUntilReady } from './child-process.runner';
import { RestartBackoff } from './restart-backoff';

/** One structured launcher log line: a message and its fields. */
export type LauncherEvent = { msg: string; app: string } & Record<string, string | number | null>;

export interface AppSupervisorOptions {
  name: string;
  /** Spawns one instance of the app (each restart calls it again). */
  spawn: () => RunningChild;
  /** True once the instance serves (gRPC health, an HTTP endpoint). */
  probe: () => Promise<boolean>;
  log: (event: LauncherEvent) => void;
  backoff?: RestartBackoff;
  readyTimeoutMs?: number;
  /** How long an app may take to stop after SIGTERM before it is killed. */
  stopGraceMs?: number;
}

/**
 * Keeps one app running under `npm start`: once it has been ready, an instance that dies is
 * started again after a backoff while every other app keeps running. Once stopping, it restarts
 * nothing, and it only ever signals the pid of the instance it spawned.
 */
export class AppSupervisor {
  private current: RunningChild | undefined;
  private startedAt = 0;
  private restarts = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  private readonly backoff: RestartBackoff;

  constructor(private readonly options: AppSupervisorOptions) {
    this.backoff = options.backoff ?? new RestartBackoff();
  }

  get pid(): number | undefined {
    return this.current?.child.pid;
  }

  /**
   * Starts the first instance and resolves once it is ready. An instance that exits before that
   * fails the start (a port taken, a database missing): restarting would only repeat the error.
   */
  async start(): Promise<void> {
    const proc = this.spawnInstance();
    await waitUntilReady(proc, this.options.probe, this.options.readyTimeoutMs);
    void proc.exited.then((exit) => this.onExit(proc, exit));
  }

  /** Restarts nothing from now on: called on every app before any is stopped. */
  beginStop(): void {
    this.stopping = true;
    clearTimeout(this.restartTimer);
  }

  /** Stops the running instance, if any: SIGTERM, then SIGKILL after the grace period. */
  async stop(): Promise<void> {
    this.beginStop();
    const proc = this.current;
    if (!proc || hasExited(proc)) return;
    proc.child.kill('SIGTERM');
    const killTimer = setTimeout(() => proc.child.kill('SIGKILL'), this.options.stopGraceMs ?? 15_000);
    await proc.exited;
    clearTimeout(killTimer);
  }

  private spawnInstance(): RunningChild {
    const proc = this.options.spawn();
    this.current = proc;
    this.startedAt = Date.now();
    this.options.log({ msg: 'app started', app: this.options.name, pid: proc.child.pid ?? null, restart: this.restarts });
    return proc;
  }

  private onExit(proc: RunningChild, exit: ChildExit): void {
    if (this.stopping || proc !== this.current) return;
    const upForMs = Date.now() - this.startedAt;
    const delayMs = this.backoff.next(upForMs);
    this.restarts++;
    this.options.log({
      msg: 'app exited; restarting it',
      app: this.options.name,
      pid: proc.child.pid ?? null,
      code: exit.code,
      signal: exit.signal,
      upForMs,
      restart: this.restarts,
      restartInMs: delayMs,
    });
    this.restartTimer = setTimeout(() => void this.restart(), delayMs);
  }

  private async restart(): Promise<void> {
    if (this.stopping) return;
    const restart = this.restarts;
    const proc = this.spawnInstance();
    // Watched from the spawn on: an instance that dies before it is ready counts as one more death.
    void proc.exited.then((exit) => this.onExit(proc, exit));
    try {
      await waitUntilReady(proc, this.options.probe, this.options.readyTimeoutMs);
      if (!this.stopping) this.options.log({ msg: 'app is back', app: this.options.name, pid: proc.child.pid ?? null, restart });
    } catch (error) {
      // An exit is already handled above; a slow start is reported and left running.
      if (!hasExited(proc) && !this.stopping)
        this.options.log({ msg: 'restarted app is not ready', app: this.options.name, pid: proc.child.pid ?? null, restart, error: String(error) });
    }
  }
}
