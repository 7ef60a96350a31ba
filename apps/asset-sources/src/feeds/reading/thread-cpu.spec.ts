import { Worker } from 'node:worker_threads';
import { threadCpuBudget, threadCpuMs } from './thread-cpu';

/** Keeps this thread busy until it has used `ms` of CPU (however long a busy machine makes that take). */
const spinCpu = (ms: number) => {
  const start = threadCpuMs() ?? 0;
  while ((threadCpuMs() ?? Number.POSITIVE_INFINITY) - start < ms);
};

describe("a budget of this thread's CPU time", () => {
  it('is spent by work on this thread', () => {
    const spent = threadCpuBudget(50);
    expect(spent()).toBe(false);
    spinCpu(80);
    expect(spent()).toBe(true);
  });

  it('is not spent by another thread of the process, however busy, nor by waiting', async () => {
    const spent = threadCpuBudget(50);
    const cpuBefore = process.cpuUsage();
    // Another thread of this process burns CPU for 400 ms while this one waits.
    const burner = new Worker('const until = Date.now() + 400; while (Date.now() < until);', { eval: true });
    await new Promise((resolve) => burner.once('exit', resolve));
    const processCpuMs = (process.cpuUsage(cpuBefore).user + process.cpuUsage(cpuBefore).system) / 1_000;
    // The process as a whole used far more than the budget (so process.cpuUsage would call it spent)...
    expect(processCpuMs).toBeGreaterThan(100);
    // ...but none of it was this thread's.
    expect(spent()).toBe(false);
  });

  it("reads this thread's clock on Linux", () => {
    expect(threadCpuMs()).toEqual(expect.any(Number));
  });
});
