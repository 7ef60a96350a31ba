import type { Measurement } from './measure';

/** Why a measurement cannot be trusted: a benchmark that measured 401s or timeouts is worthless. */
export function problemsOf(measurement: Measurement): string[] {
  const problems: string[] = [];
  if (measurement.responses === 0) problems.push('no responses at all');
  if (measurement.errors > 0) problems.push(`${measurement.errors} connection errors or timeouts`);
  if (measurement.non2xx > 0) problems.push(`${measurement.non2xx} non-2xx responses`);
  if (measurement.mismatches > 0) problems.push(`${measurement.mismatches} responses with an unexpected body`);
  return problems.map((problem) => `${measurement.name}: ${problem}`);
}

/** Significant digits, not decimals: 0.0137x and 0.0109x must not both print as 0.01x. */
function ratio(subject: number, baseline: number): string {
  if (!(baseline > 0) || Number.isNaN(subject)) return 'n/a';
  const value = subject / baseline;
  return value < 1 && value > 0 ? `${value.toPrecision(2)}x (1/${(1 / value).toFixed(0)})` : `${value.toPrecision(3)}x`;
}
const ms = (value: number) => (Number.isNaN(value) ? 'n/a' : value.toFixed(value < 10 ? 2 : 1));

function table(rows: string[][]): string {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows.map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('  ')).join('\n');
}

/**
 * Prints subject beside baseline with the ratio subject/baseline, and sets a failing exit code
 * (rather than exiting, so the caller's clean-up still runs) when either run is untrustworthy.
 * Returns whether the comparison is valid.
 */
export function printComparison(subject: Measurement, baseline: Measurement): boolean {
  const row = (m: Measurement) => [m.name, m.requestsPerSec.toFixed(0), ms(m.p50Ms), ms(m.p99Ms), String(m.errors), String(m.non2xx)];
  console.log(
    table([
      ['', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'non-2xx'],
      row(baseline),
      row(subject),
      [
        'ratio subject/baseline',
        ratio(subject.requestsPerSec, baseline.requestsPerSec),
        ratio(subject.p50Ms, baseline.p50Ms),
        ratio(subject.p99Ms, baseline.p99Ms),
        '',
        '',
      ],
    ]),
  );
  for (const m of [baseline, subject]) {
    const parts = Object.entries(m.cpuMsPerRequest);
    if (parts.length === 0) continue;
    const total = parts.reduce((sum, [, value]) => sum + value, 0);
    // CPU per request says where the time goes when the cores, not a wait, are the limit.
    console.log(`CPU ms/request, ${m.name}: ${parts.map(([label, value]) => `${label} ${value.toFixed(3)}`).join(', ')} (total ${total.toFixed(3)})`);
  }
  const problems = [...problemsOf(baseline), ...problemsOf(subject)];
  for (const problem of problems) console.error(`INVALID: ${problem}`);
  if (problems.length > 0) process.exitCode = 1;
  return problems.length === 0;
}
