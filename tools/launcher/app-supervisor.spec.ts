import { spawn } from 'node:child_process';
import { isProcessAlive } from '@platform/testing';
import { AppSupervisor, LauncherEvent } from './app-supervisor';
import { ChildExit, RunningChild } from './child-process.runner';
import { RestartBackoff } from './restart-backoff';

/** A real node process that idles (or exits at once), standing in for an app. */
function idleProcess(name: string, exitAfterMs?: number): RunningChild {
  const script = exitAfterMs === undefined ? 'setInterval(() => {}, 1000)' : `setTimeout(() => process.exit(3), ${exitAfterMs})`;
  const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
  return { name, child, exited: new Promise<ChildExit>((done) => child.once('exit', (code, signal) => done({ code, signal }))) };
}

const until = async (condition: () => boolean, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe(AppSupervisor.name, () => {
  const backoff = () => new RestartBackoff({ initialMs: 50, capMs: 200, resetAfterUpMs: 60_000 });
  let supervisor: AppSupervisor | undefined;
  afterEach(() => supervisor?.stop());

  it('restarts an app killed after it was up, logging the death and the return', async () => {
    const events: LauncherEvent[] = [];
    supervisor = new AppSupervisor({
      name: 'templates',
      spawn: () => idleProcess('app'),
      probe: async () => true,
      log: (e) => events.push(e),
      backoff: backoff(),
    });
    await supervisor.start();
    const firstPid = supervisor.pid as number;
    process.kill(firstPid, 'SIGKILL');
    await until(() => events.some((e) => e.msg === 'app is back'));

    expect(events.find((e) => e.msg === 'app exited; restarting it')).toMatchObject({
      app: 'templates',
      pid: firstPid,
      code: null,
      signal: 'SIGKILL',
      restart: 1,
      restartInMs: 50,
    });
    expect(events.find((e) => e.msg === 'app is back')).toMatchObject({ app: 'templates', pid: supervisor.pid, restart: 1 });
    expect(supervisor.pid).not.toBe(firstPid);
    expect(isProcessAlive(supervisor.pid as number)).toBe(true);
  });

  it('keeps restarting an app that dies again and again, at the capped delay', async () => {
    const events: LauncherEvent[] = [];
    let instances = 0;
    // The first instance stays up; every restarted one dies after 10 ms.
    supervisor = new AppSupervisor({
      name: 'crashy',
      spawn: () => idleProcess('crashy', instances++ === 0 ? undefined : 10),
      probe: async () => true,
      log: (e) => events.push(e),
      backoff: backoff(),
    });
    await supervisor.start();
    process.kill(supervisor.pid as number, 'SIGKILL');
    await until(() => events.filter((e) => e.msg === 'app exited; restarting it').length >= 5);

    const deaths = events.filter((e) => e.msg === 'app exited; restarting it');
    expect(deaths.slice(0, 5).map((e) => [e.restart, e.restartInMs])).toEqual([
      [1, 50],
      [2, 100],
      [3, 200],
      [4, 200],
      [5, 200],
    ]);
    expect(deaths.slice(1, 5).map((e) => e.code)).toEqual([3, 3, 3, 3]);
  });

  it('restarts nothing once stopping, and ends the instance it started', async () => {
    const events: LauncherEvent[] = [];
    supervisor = new AppSupervisor({
      name: 'gateway',
      spawn: () => idleProcess('app'),
      probe: async () => true,
      log: (e) => events.push(e),
      backoff: backoff(),
    });
    await supervisor.start();
    const pid = supervisor.pid as number;
    await supervisor.stop();
    expect(isProcessAlive(pid)).toBe(false);
    await new Promise((r) => setTimeout(r, 300));
    expect(events.map((e) => e.msg)).toEqual(['app started']);
  });

  it('cancels a pending restart when the stop comes during the backoff', async () => {
    const events: LauncherEvent[] = [];
    supervisor = new AppSupervisor({
      name: 'templates',
      spawn: () => idleProcess('app'),
      probe: async () => true,
      log: (e) => events.push(e),
      backoff: new RestartBackoff({ initialMs: 500, capMs: 500, resetAfterUpMs: 60_000 }),
    });
    await supervisor.start();
    process.kill(supervisor.pid as number, 'SIGKILL');
    await until(() => events.some((e) => e.msg === 'app exited; restarting it'));
    await supervisor.stop();
    await new Promise((r) => setTimeout(r, 800));
    expect(events.filter((e) => e.msg === 'app started')).toHaveLength(1);
  });

  it('fails the start, restarting nothing, when the first instance exits before it is ready', async () => {
    const events: LauncherEvent[] = [];
    supervisor = new AppSupervisor({
      name: 'broken',
      spawn: () => idleProcess('broken', 10),
      probe: async () => false,
      log: (e) => events.push(e),
      backoff: backoff(),
    });
    await expect(supervisor.start()).rejects.toThrow(/broken exited \(code 3\) before it was ready/);
    await new Promise((r) => setTimeout(r, 300));
    expect(events.map((e) => e.msg)).toEqual(['app started']);
  });
});
