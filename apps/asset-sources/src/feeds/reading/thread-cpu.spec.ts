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
    // Large against what this thread does meanwhile (it only waits), so a busy machine cannot spend it here.
    const BUDGET_MS = 1_000;
    const spent = threadCpuBudget(BUDGET_MS);
    const cpuBefore = process.cpuUsage();
    // Another thread of this process burns more CPU than the budget, by its own clock, while this one waits.
    const burner = new Worker(
      `const { readFileSync } = require('node:fs');
       const cpuMs = () => { const s = readFileSync('/proc/thread-self/stat', 'latin1'); const f = s.slice(s.lastIndexOf(')') + 2).split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
       const start = cpuMs(); const until = Date.now() + 30000;
       while (cpuMs() - start < ${BUDGET_MS * 1.3} && Date.now() < until);`,
      { eval: true },
    );
    await new Promise((resolve) => burner.once('exit', resolve));
    const used = process.cpuUsage(cpuBefore);
    // The process as a whole used more than the budget (so process.cpuUsage would call it spent)...
    expect((used.user + used.system) / 1_000).toBeGreaterThan(BUDGET_MS);
    // ...but none of it was this thread's.
    expect(spent()).toBe(false);
  });

  it("reads this thread's clock on Linux", () => {
    expect(threadCpuMs()).toEqual(expect.any(Number));
  });
});
