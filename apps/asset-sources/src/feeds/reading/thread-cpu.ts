import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/** Linux reports a thread's times in USER_HZ, 100 per second on every architecture we run on. */
const TICKS_PER_MS = 100 / 1_000;
/** How often, past the wall-clock budget, the thread's own clock is read again. */
const RECHECK_MS = 2;

/** CPU time this thread has used, in ms, from /proc/thread-self/stat (10 ms steps); undefined where there is no such file. */
export function threadCpuMs(): number | undefined {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'latin1');
    // After "pid (comm) ": state is field 3, utime field 14 and stime field 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks / TICKS_PER_MS : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A budget of `ms` of this thread's CPU time from the call: answers true once it is spent.
 *
 * Not the process's CPU time (process.cpuUsage): the process has other busy threads (a feed's parser
 * thread, another feed's, V8's helpers), whose work would spend the budget of code that did not do it.
 * Not the wall clock alone either: on a busy machine code may wait for a core far longer than it runs.
 * The wall clock is read first (cheap); only once it passes the budget is the thread's own clock read,
 * at most every few ms; where there is none, the wall clock decides.
 */
export function threadCpuBudget(ms: number): () => boolean {
  const startWall = performance.now();
  const startCpu = threadCpuMs();
  let nextCheck = startWall + ms;
  return () => {
    const now = performance.now();
    if (now < nextCheck) return false;
    if (startCpu === undefined) return true;
    const used = (threadCpuMs() ?? Number.POSITIVE_INFINITY) - startCpu;
    if (used > ms) return true;
    nextCheck = now + RECHECK_MS;
    return false;
  };
}
