import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';

/** Linux reports process CPU in USER_HZ ticks, 100 per second on every architecture we run. */
const MS_PER_TICK = 10;

/** User + system CPU a process (all its threads) has used so far, or undefined off Linux / once it exited. */
export function cpuTimeMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may contain spaces and parentheses; fields are counted after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK;
  } catch {
    return undefined;
  }
}

/** CPU of each named process so far, to subtract around a run (NaN where /proc could not tell). */
export function cpuSnapshot(pids: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuTimeMs(pid) ?? NaN]));
}

/** CPU each named process used since `before` (a cpuSnapshot of the same processes). */
export function cpuSince(pids: Record<string, number>, before: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, (cpuTimeMs(pid) ?? NaN) - (before[name] ?? NaN)]));
}

/** The first process whose command name (comm) is `name`, e.g. the local `mariadbd`. */
export function findPidByCommand(name: string): number | undefined {
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === name) return Number(entry);
      } catch {
        // The process exited between listing and reading.
      }
    }
  } catch {
    // No /proc: not Linux.
  }
  return undefined;
}

function cpuTotals(): { busy: number; all: number } {
  let busy = 0;
  let all = 0;
  for (const { times } of cpus()) {
    const total = times.user + times.nice + times.sys + times.irq + times.idle;
    all += total;
    busy += total - times.idle;
  }
  return { busy, all };
}

/**
 * Fraction of all cores busy over `sampleMs`. Taken before measuring: on a shared machine another
 * test run can halve the figures, and the report should say so.
 */
export async function machineBusyFraction(sampleMs = 1000): Promise<number> {
  const before = cpuTotals();
  await new Promise((done) => setTimeout(done, sampleMs));
  const after = cpuTotals();
  const all = after.all - before.all;
  return all > 0 ? (after.busy - before.busy) / all : 0;
}
