import { performance } from 'node:perf_hooks';
import { cpuTimeMs } from './cpu-time';
import type { Measurement } from './measure';
import { percentile } from './percentiles';
import type { LoadSettings } from './settings';

/**
 * The in-process baseline beside autocannon: `connections` loops, each calling `attempt` again as soon as
 * the last call settled, for a warm-up (discarded) and then the measured duration. `attempt` answers
 * whether its result was the expected one; a throw counts as an error. CPU per call is read from /proc
 * for the processes in `cpuOf` over the measured run, as measure() does.
 */
export async function measureLoops(name: string, settings: LoadSettings, attempt: () => Promise<boolean>, cpuOf: Record<string, number>): Promise<Measurement> {
  const run = async (durationSec: number) => {
    const latencies: number[] = [];
    let errors = 0;
    let mismatches = 0;
    const deadline = performance.now() + durationSec * 1000;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: settings.connections }, async () => {
        while (performance.now() < deadline) {
          const begin = performance.now();
          try {
            if (!(await attempt())) mismatches++;
            latencies.push(performance.now() - begin);
          } catch {
            errors++;
          }
        }
      }),
    );
    return { latenciesMs: Float64Array.from(latencies).sort(), errors, mismatches, seconds: (performance.now() - started) / 1000 };
  };
  if (settings.warmupSec > 0) await run(settings.warmupSec);
  const cpuBefore = Object.entries(cpuOf).map(([label, pid]) => [label, pid, cpuTimeMs(pid)] as const);
  const { latenciesMs, errors, mismatches, seconds } = await run(settings.durationSec);
  const cpuMsPerRequest: Record<string, number> = {};
  for (const [label, pid, before] of cpuBefore) {
    const after = cpuTimeMs(pid);
    if (before !== undefined && after !== undefined && latenciesMs.length > 0) cpuMsPerRequest[label] = (after - before) / latenciesMs.length;
  }
  return {
    name,
    requestsPerSec: latenciesMs.length / seconds,
    p50Ms: percentile(latenciesMs, 0.5),
    p99Ms: percentile(latenciesMs, 0.99),
    errors,
    non2xx: 0,
    mismatches,
    responses: latenciesMs.length,
    cpuMsPerRequest,
  };
}
