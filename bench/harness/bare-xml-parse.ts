import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { performance } from 'node:perf_hooks';
import { saxesRowCounter } from './bare-parsers';

/**
 * The XML side of the feed benchmark's baseline, run as a process of its own so its peak RSS is its
 * own: saxes (the streaming parser the feed reader uses, with the reader's options) over a URL's
 * bytes decoded as UTF-8, counting the row elements (the children of the root) as they close. Prints
 * `{rows, seconds, peakRssMiB, cpuMs}` as JSON.
 */
async function main(url: string): Promise<void> {
  const begin = performance.now();
  const cpuBegin = process.cpuUsage();
  const rows = await new Promise<number>((resolve, reject) => {
    get(url, (response) => {
      const { parser, rows: counted } = saxesRowCounter();
      parser.on('error', reject);
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => parser.write(chunk));
      response.on('end', () => {
        parser.close();
        resolve(counted());
      });
      response.on('error', reject);
    }).on('error', reject);
  });
  const seconds = (performance.now() - begin) / 1000;
  const cpu = process.cpuUsage(cpuBegin);
  const peakKb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
  process.stdout.write(JSON.stringify({ rows, seconds, peakRssMiB: peakKb / 1024, cpuMs: (cpu.user + cpu.system) / 1000 }));
}

void main(process.argv[2] ?? '');
