import { readFileSync } from 'node:fs';
import { basename, relative, resolve } from 'node:path';

/**
 * Summarises .cpuprofile files written with BENCH_PROFILE_DIR: self time by package (or workspace
 * file) and the hottest functions, so "where does the time go" has an answer without a GUI.
 * Usage: npx tsx bench/profile-summary.ts <dir>/*.cpuprofile
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const WORKSPACE_ROOT = resolve(__dirname, '..');

function owner(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const path = url.replace(/^file:\/\//, '');
  const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (inModules) return inModules[1];
  if (path.startsWith('node:')) return path;
  if (path.startsWith(WORKSPACE_ROOT)) return relative(WORKSPACE_ROOT, path);
  return path;
}

function top(totals: Map<string, number>, totalUs: number, count: number): string[] {
  return [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, us]) => `${((100 * us) / totalUs).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${name}`);
}

function summarise(file: string): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const byOwner = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let totalUs = 0;
  let idleUs = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const deltaUs = profile.timeDeltas[i] ?? 0;
    if (!node) return;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') {
      idleUs += deltaUs;
      return;
    }
    totalUs += deltaUs;
    const who = owner(url, functionName);
    byOwner.set(who, (byOwner.get(who) ?? 0) + deltaUs);
    const where = url ? `${who}:${lineNumber + 1}` : who;
    const fn = `${functionName || '(anonymous)'}  ${where}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + deltaUs);
  });
  console.log(`\n${basename(file)}: ${(totalUs / 1000).toFixed(0)} ms on CPU, ${(idleUs / 1000).toFixed(0)} ms idle`);
  console.log('self time by package / file:');
  for (const line of top(byOwner, totalUs, 20)) console.log(`  ${line}`);
  console.log('hottest functions (self):');
  for (const line of top(byFunction, totalUs, 25)) console.log(`  ${line}`);
}

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: npx tsx bench/profile-summary.ts <file.cpuprofile>...');
  process.exitCode = 2;
}
for (const file of files) summarise(file);
