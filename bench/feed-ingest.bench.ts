import { execFile } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { finished } from 'node:stream/promises';
import { promisify } from 'node:util';
import { cpuTimeMs, findPidByCommand, machineBusyFraction } from './harness/cpu-time';
import { apiClient, expectJson } from './harness/http-api';
import { startObjectStore, startPlatform } from './harness/platform';
import { COLUMNS, feedHead, feedRow, feedTail, type FeedFormat as Format } from './harness/product-feed';
import { settleQueue } from './harness/queue';
import { writeRowsAlone } from './harness/rows-written-alone';
import { seedRetailerOrg } from './harness/seed';
import { settle } from './harness/settle';
import { withTeardown } from './harness/teardown';

/**
 * Ingest of a generated product feed of BENCH_FEED_ROWS rows (default 1,000,000: about 300 MB as CSV,
 * 500 MB as XML) served over HTTP on loopback, as CSV and then the same rows as XML (BENCH_FEED_FORMATS,
 * default `csv,xml`): a feed source created with POST .../asset-sources/feed/create, timed from the
 * POST until its queue answers Completed, and the asset-sources process's peak RSS (VmHWM, restarted
 * before each format) over the run. Baseline, in the same run, once before and once after the subject's
 * run (the ratio is against the mean of their rates): the bare parser the feed reader uses (csv-parse,
 * saxes) reading the same bytes from the same server in a process of its own, counting rows; its rows/s
 * and peak RSS. The services run with the NODE_OPTIONS and MALLOC_ARENA_MAX the Kubernetes manifests give them.
 * Beside them, the database's share alone: the same rows as the ingestion stores them, already encoded,
 * loaded into a fresh copy of the schema (harness/rows-written-alone.ts), and from it and the bare parser
 * the highest ratio any ingestion storing the rows in MariaDB could reach on this machine's cores.
 */
const ROWS = Number(process.env.BENCH_FEED_ROWS ?? 1_000_000);
const FORMATS = (process.env.BENCH_FEED_FORMATS ?? 'csv,xml').split(',').map((f) => f.trim()) as Format[];
/** deploy/k8s/components/asset-sources/asset-sources.yaml (and the other services' manifests). */
const DEPLOYED_NODE_OPTIONS = '--max-old-space-size=256';
/** deploy/k8s/components/asset-sources/asset-sources.yaml: glibc's malloc arenas, at most two. */
const DEPLOYED_MALLOC_ARENA_MAX = '2';
const ORG_ID = 'bench-feeds';
/** A million rows on a busy machine take longer than the harness's default ten minutes. */
const INGEST_DEADLINE_MS = 60 * 60_000;
const execFileAsync = promisify(execFile);
const MYSQL_URL = process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';

async function writeFeed(path: string, rows: number, format: Format): Promise<void> {
  const out = createWriteStream(path);
  out.write(feedHead(format));
  let chunk = '';
  for (let i = 0; i < rows; i++) {
    chunk += `${feedRow(format, i)}\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      chunk = '';
    }
  }
  out.end(`${chunk}${feedTail(format)}`);
  await finished(out);
}

/** Peak resident set of a process so far (VmHWM), in MiB. */
async function peakRssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]);
  return kb / 1024;
}

/** Resident set of a process now (VmRSS), in MiB. */
async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
}

interface BareRun {
  rows: number;
  seconds: number;
  peakRssMiB: number;
  cpuMs: number;
}

/** The baseline: the bare parser alone, in a process of its own, over the same bytes from the same server. */
async function bareParse(format: Format, feedHost: string): Promise<BareRun> {
  const { stdout } = await execFileAsync(
    process.execPath,
    ['--import', 'tsx', resolve(__dirname, `harness/bare-${format}-parse.ts`), `http://${feedHost}/products.${format}`],
    { maxBuffer: 1 << 20 },
  );
  const bare = JSON.parse(stdout) as BareRun;
  if (bare.rows !== ROWS) throw new Error(`the bare ${format} parser counted ${bare.rows} rows, not ${ROWS}`);
  return bare;
}

/** Starts a new peak: VmHWM restarts from the current RSS (Linux clear_refs 5), so each format's peak is its own. */
async function resetPeakRss(pid: number): Promise<void> {
  await writeFile(`/proc/${pid}/clear_refs`, '5');
}

/**
 * The highest ratio an ingestion that parses the rows and stores them could reach: it takes at least
 * as long as the parser alone, as long as the stores alone, and as long as their CPU takes spread
 * over every core, whichever is longest.
 */
function ratioCeiling(bareRowsPerSecond: number, bareCpuUsPerRow: number, storeRowsPerSecond: number, storeCpuUsPerRow: number): number {
  const fastestUsPerRow = Math.max(1e6 / bareRowsPerSecond, 1e6 / storeRowsPerSecond, (bareCpuUsPerRow + storeCpuUsPerRow) / cpus().length);
  return 1e6 / bareRowsPerSecond / fastestUsPerRow;
}

async function main(): Promise<void> {
  await withTeardown(async (defer) => {
    const work = await mkdtemp(join(tmpdir(), 'bench-feed-'));
    defer('remove the feed files', () => rm(work, { recursive: true, force: true }));
    const files = new Map<Format, { path: string; bytes: number }>();
    for (const format of FORMATS) {
      const path = join(work, `products.${format}`);
      await writeFeed(path, ROWS, format);
      const bytes = (await stat(path)).size;
      files.set(format, { path, bytes });
      console.log(`${format} feed: ${ROWS} rows, ${bytes} bytes (${(bytes / ROWS).toFixed(0)} bytes per row), ${COLUMNS.length} columns`);
    }

    const server: Server = createServer((req, res) => {
      const file = files.get((req.url ?? '').endsWith('.xml') ? 'xml' : 'csv');
      if (!file) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': (req.url ?? '').endsWith('.xml') ? 'application/xml' : 'text/csv', 'content-length': String(file.bytes) });
      createReadStream(file.path).pipe(res);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    defer('stop the feed server', () => new Promise<void>((done) => server.close(() => done())));
    const feedHost = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    const largest = Math.max(...[...files.values()].map((f) => f.bytes));

    const s3 = await startObjectStore(defer);
    const platform = await startPlatform('benchfeed', defer, {
      services: ['storage-library', 'asset-sources'],
      env: {
        S3_ENDPOINT: s3.endpoint,
        OUTBOUND_ALLOWLIST: `${feedHost},${s3.hostPort}`,
        FEED_INGEST_MAX_BYTES: String(largest * 2),
        FEED_SCHEDULE_SWEEP_MS: '0',
        // As the Kubernetes manifests run every service (deploy/k8s/components/*/: NODE_OPTIONS; asset-sources also MALLOC_ARENA_MAX).
        NODE_OPTIONS: DEPLOYED_NODE_OPTIONS,
        MALLOC_ARENA_MAX: DEPLOYED_MALLOC_ARENA_MAX,
      },
    });
    const api = apiClient(platform.gatewayUrl);
    const { apiKey, accountId } = await seedRetailerOrg(api, ORG_ID);
    const assetSourcesPid = platform.pids['asset-sources'];
    if (assetSourcesPid === undefined) throw new Error('asset-sources did not start');
    const mariadbPid = findPidByCommand('mariadbd');
    const summary: string[] = [];

    for (const format of FORMATS) {
      const busy = await machineBusyFraction();
      console.log(
        `\n${format}: machine busy before measuring: ${(busy * 100).toFixed(0)}% of all cores (load average ${loadavg()
          .map((l) => l.toFixed(1))
          .join(', ')})`,
      );

      // The baseline runs on either side of the subject's: the host's speed drifts by a fifth within minutes.
      const bareBefore = await bareParse(format, feedHost);
      await settle();

      // The subject: create, then the queue from Queued to Completed.
      await resetPeakRss(assetSourcesPid);
      const rssBefore = await rssMiB(assetSourcesPid);
      const cpuBefore = cpuTimeMs(assetSourcesPid) ?? NaN;
      const dbCpuBefore = mariadbPid === undefined ? NaN : (cpuTimeMs(mariadbPid) ?? NaN);
      const begin = performance.now();
      const created = expectJson<{ id: number; queueId: string }>(
        await api('POST', `/v2/accounts/${accountId}/asset-sources/feed/create`, {
          token: apiKey,
          json: {
            assetSourceName: `Bench products (${format})`,
            url: `http://${feedHost}/products.${format}`,
            urlType: 'http',
            contentType: format,
            csvSeparator: 'comma',
            characterEncoding: 'UTF_8',
            firstRowIsHeader: true,
            columnNames: COLUMNS,
            assetKeyColumn: 'sku',
            assetGroupColumn: 'category',
            reportingColumn: 'title',
          },
        }),
        201,
        `create ${format} feed source`,
      );
      const done = await settleQueue(api, apiKey, created.queueId, INGEST_DEADLINE_MS);
      const ingestSeconds = (performance.now() - begin) / 1000;
      const ingestCpuMs = (cpuTimeMs(assetSourcesPid) ?? NaN) - cpuBefore;
      const dbCpuMs = mariadbPid === undefined ? NaN : (cpuTimeMs(mariadbPid) ?? NaN) - dbCpuBefore;
      const ingestPeak = await peakRssMiB(assetSourcesPid);
      if (done.totalProcessed !== ROWS) throw new Error(`the ${format} run read ${done.totalProcessed} rows, not ${ROWS}: ${done.message}`);
      const detail = expectJson<{ rowCount: number }>(
        await api('GET', `/v2/accounts/${accountId}/asset-sources/${created.id}`, { token: apiKey }),
        200,
        'detail',
      );
      if (detail.rowCount !== ROWS) throw new Error(`the ${format} source serves ${detail.rowCount} rows, not ${ROWS}`);

      // The second baseline run, right after the subject's.
      await settle();
      const bareAfter = await bareParse(format, feedHost);
      await settle();
      const alone = await writeRowsAlone({ mysqlUrl: MYSQL_URL, schemaPrefix: platform.prefix, rows: ROWS, mariadbPid });

      const ingestRate = ROWS / ingestSeconds;
      const bareRate = (bareBefore.rows / bareBefore.seconds + bareAfter.rows / bareAfter.seconds) / 2;
      const parser = format === 'csv' ? 'csv-parse' : 'saxes';
      const bareRow = (bare: BareRun) => ({
        seconds: bare.seconds.toFixed(1),
        'rows/s': Math.round(bare.rows / bare.seconds),
        'peak RSS MiB': bare.peakRssMiB.toFixed(0),
        'CPU s': (bare.cpuMs / 1000).toFixed(1),
        'CPU s mariadbd': '',
        'CPU µs/row': ((bare.cpuMs * 1000) / bare.rows).toFixed(1),
      });
      // CPU per row moves less with the host's speed than rows/s: the ingest's counts asset-sources and MariaDB.
      const ingestCpuPerRow = ((ingestCpuMs + (Number.isFinite(dbCpuMs) ? dbCpuMs : 0)) * 1000) / ROWS;
      const bareCpuPerRow = ((bareBefore.cpuMs + bareAfter.cpuMs) * 1000) / (bareBefore.rows + bareAfter.rows);
      console.log(`message: ${done.message}`);
      console.table({
        [`bare ${parser} before (baseline)`]: bareRow(bareBefore),
        [`ingest ${format} to Completed (subject)`]: {
          seconds: ingestSeconds.toFixed(1),
          'rows/s': Math.round(ingestRate),
          'peak RSS MiB': ingestPeak.toFixed(0),
          'CPU s': (ingestCpuMs / 1000).toFixed(1),
          'CPU s mariadbd': Number.isFinite(dbCpuMs) ? (dbCpuMs / 1000).toFixed(1) : 'not read',
          'CPU µs/row': ingestCpuPerRow.toFixed(1),
        },
        [`bare ${parser} after (baseline)`]: bareRow(bareAfter),
        'rows written alone (database share)': {
          seconds: alone.seconds.toFixed(1),
          'rows/s': Math.round(ROWS / alone.seconds),
          'peak RSS MiB': '',
          'CPU s': '',
          'CPU s mariadbd': Number.isFinite(alone.dbCpuMs) ? (alone.dbCpuMs / 1000).toFixed(1) : 'not read',
          'CPU µs/row': Number.isFinite(alone.dbCpuMs) ? ((alone.dbCpuMs * 1000) / ROWS).toFixed(1) : 'not read',
        },
      });
      const line =
        `${format}: ratio rows/s subject/baseline ${(ingestRate / bareRate).toFixed(3)} against the baselines' mean ${Math.round(bareRate)} rows/s (goal at least 0.5); ` +
        `asset-sources peak RSS ${ingestPeak.toFixed(0)} MiB (${rssBefore.toFixed(0)} MiB before the run; goal at most 256); ` +
        `CPU per row ${ingestCpuPerRow.toFixed(1)} µs (asset-sources and MariaDB) against the bare parser's ${bareCpuPerRow.toFixed(1)}`;
      console.log(line);
      summary.push(line);
      const ceiling = ratioCeiling(bareRate, bareCpuPerRow, ROWS / alone.seconds, (alone.dbCpuMs * 1000) / ROWS);
      const ceilingLine =
        `${format}: storing the rows alone: ${Math.round(ROWS / alone.seconds)} rows/s, ${((alone.dbCpuMs * 1000) / ROWS).toFixed(1)} µs of MariaDB CPU per row; ` +
        `parsing at the bare parser's cost beside it on ${cpus().length} cores, nothing else costing anything, the ratio could reach at most ${ceiling.toFixed(3)} ` +
        `(this run reached ${(ingestRate / bareRate / ceiling).toFixed(2)} of that)`;
      console.log(ceilingLine);
      summary.push(ceilingLine);
    }
    console.log(`\n${summary.join('\n')}`);
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
