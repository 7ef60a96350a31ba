import autocannon from 'autocannon';
import { cpuTimeMs } from './cpu-time';
import { percentile } from './percentiles';
import type { LoadSettings } from './settings';

export interface MeasureOptions extends LoadSettings {
  name: string;
  url: string;
  /** GET unless set; a POST search sends `body` with every request. */
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** Request body sent with every request (set a content-type in `headers`). */
  body?: string;
  /** When set, every response body is compared with it, so a fast wrong answer counts as a failure. */
  expectBody?: string;
  /** Processes (label -> pid) whose CPU time per request to report for the measured run. */
  cpuOf?: Record<string, number>;
  /** Requests per second across all connections; unset: as fast as the server answers. */
  overallRate?: number;
}

export interface Measurement {
  name: string;
  /** Responses completed in the measured run divided by its duration. */
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Connection errors and timeouts. */
  errors: number;
  non2xx: number;
  /** Responses whose body differed from `expectBody`. */
  mismatches: number;
  responses: number;
  /** CPU ms per response of each process in `cpuOf` (where /proc could tell). */
  cpuMsPerRequest: Record<string, number>;
}

interface Run {
  result: autocannon.Result;
  /** Every response's latency in ms, with the sub-millisecond part autocannon's histogram drops. */
  latenciesMs: Float64Array;
}

function fire(options: MeasureOptions, durationSec: number): Promise<Run> {
  return new Promise((done, fail) => {
    const latencies: number[] = [];
    const instance = autocannon(
      {
        url: options.url,
        method: options.method ?? 'GET',
        headers: options.headers,
        body: options.body,
        connections: options.connections,
        duration: durationSec,
        expectBody: options.expectBody,
        ...(options.overallRate ? { overallRate: options.overallRate } : {}),
      },
      (error, result) => (error ? fail(error) : done({ result, latenciesMs: Float64Array.from(latencies).sort() })),
    );
    // autocannon records whole milliseconds; a bare server answers in well under one.
    instance.on('response', (_client, _status, _bytes, responseTimeMs) => latencies.push(responseTimeMs));
  });
}

function cpuSnapshot(pids: Record<string, number>): Map<string, number> {
  const snapshot = new Map<string, number>();
  for (const [label, pid] of Object.entries(pids)) {
    const ms = cpuTimeMs(pid);
    if (ms !== undefined) snapshot.set(label, ms);
  }
  return snapshot;
}

/**
 * Runs a warm-up (discarded: it pays for JIT compilation, pool growth and socket set-up) and then
 * the measured run, with autocannon in this process.
 */
export async function measure(options: MeasureOptions): Promise<Measurement> {
  if (options.warmupSec > 0) await fire(options, options.warmupSec);
  const cpuBefore = cpuSnapshot(options.cpuOf ?? {});
  const { result, latenciesMs } = await fire(options, options.durationSec);
  const cpuAfter = cpuSnapshot(options.cpuOf ?? {});
  const cpuMsPerRequest: Record<string, number> = {};
  for (const [label, before] of cpuBefore) {
    const after = cpuAfter.get(label);
    if (after !== undefined && latenciesMs.length > 0) cpuMsPerRequest[label] = (after - before) / latenciesMs.length;
  }
  return {
    name: options.name,
    requestsPerSec: latenciesMs.length / result.duration,
    p50Ms: percentile(latenciesMs, 0.5),
    p99Ms: percentile(latenciesMs, 0.99),
    errors: result.errors,
    non2xx: result.non2xx,
    mismatches: result.mismatches,
    responses: latenciesMs.length,
    cpuMsPerRequest,
  };
}
