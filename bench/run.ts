import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';

/**
 * Runs every `*.bench.ts` here (or the ones named: `npm run bench -- media-channel-list`) one
 * after another, each in a fresh process so one benchmark's heap and JIT state cannot colour the
 * next, and never two at once: on 2 cores they would measure each other.
 */
const BENCH_DIR = __dirname;
const WORKSPACE_ROOT = resolve(BENCH_DIR, '..');
const SUFFIX = '.bench.ts';

function selectBenchmarks(requested: string[]): string[] {
  const available = readdirSync(BENCH_DIR)
    .filter((file) => file.endsWith(SUFFIX))
    .sort();
  if (requested.length === 0) return available;
  return requested.map((name) => {
    const file = basename(name).endsWith(SUFFIX) ? basename(name) : `${basename(name)}${SUFFIX}`;
    if (!available.includes(file)) throw new Error(`No benchmark ${name}; available: ${available.join(', ')}`);
    return file;
  });
}

function runBenchmark(file: string): Promise<number | null> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(BENCH_DIR, file)], { cwd: WORKSPACE_ROOT, stdio: 'inherit' });
    child.once('error', fail);
    child.once('exit', (code, signal) => done(signal ? 1 : code));
  });
}

async function main(): Promise<void> {
  // Ctrl-C reaches the benchmark too (same process group); wait for it to clean up rather than orphaning it.
  process.on('SIGINT', () => undefined);
  const failed: string[] = [];
  for (const file of selectBenchmarks(process.argv.slice(2))) {
    console.log(`\n=== ${file} (${new Date().toISOString()}) ===`);
    const code = await runBenchmark(file);
    if (code !== 0) failed.push(`${file} (exit ${code})`);
  }
  if (failed.length > 0) {
    console.error(`\nFailed: ${failed.join(', ')}`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
