import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { performance } from 'node:perf_hooks';
import { csvRowCounter } from './bare-parsers';

/**
 * The feed benchmark's baseline, run as a process of its own so its peak RSS is its own: csv-parse
 * (columns from the header, as the feed reader asks it) over a URL's bytes, counting records. Prints
 * `{rows, seconds, peakRssMiB, cpuMs}` as JSON.
 */
async function main(url: string): Promise<void> {
  const begin = performance.now();
  const cpuBegin = process.cpuUsage();
  const rows = await new Promise<number>((resolve, reject) => {
    get(url, (response) => {
      const { parser, rows: counted } = csvRowCounter();
      parser.on('end', () => resolve(counted()));
      parser.on('error', reject);
      response.pipe(parser);
    }).on('error', reject);
  });
  const seconds = (performance.now() - begin) / 1000;
  const cpu = process.cpuUsage(cpuBegin);
  const peakKb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
  process.stdout.write(JSON.stringify({ rows, seconds, peakRssMiB: peakKb / 1024, cpuMs: (cpu.user + cpu.system) / 1000 }));
}

void main(process.argv[2] ?? '');
