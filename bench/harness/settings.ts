/** Load settings shared by every benchmark, so subject and baseline always run with the same ones. */
export interface LoadSettings {
  connections: number;
  durationSec: number;
  warmupSec: number;
}

export const DEFAULT_LOAD: LoadSettings = { connections: 32, durationSec: 10, warmupSec: 3 };

function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  // A typo here would silently benchmark something else than the README says, so refuse it.
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(raw)}`);
  return value;
}

/** BENCH_CONNECTIONS, BENCH_DURATION (seconds) and BENCH_WARMUP (seconds) override the defaults. */
export function loadSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): LoadSettings {
  return {
    connections: positiveInteger(env, 'BENCH_CONNECTIONS', DEFAULT_LOAD.connections),
    durationSec: positiveInteger(env, 'BENCH_DURATION', DEFAULT_LOAD.durationSec),
    warmupSec: positiveInteger(env, 'BENCH_WARMUP', DEFAULT_LOAD.warmupSec),
  };
}
