import { execFile } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { finished } from 'node:stream/promises';
import { promisify } from 'node:util';
import { cpuTimeMs, machineBusyFraction } from './harness/cpu-time';
import { apiClient, expectJson } from './harness/http-api';
import { startObjectStore, startPlatform } from './harness/platform';
import { settleQueue } from './harness/queue';

import { seedRetailerOrg } from './harness/seed';
import { withTeardown } from './harness/teardown';

/**
 * Ingest of a generated product CSV of BENCH_FEED_ROWS rows (default 1,000,000, about 300 MB) served
 * over HTTP on loopback: a feed source created with POST .../asset-sources/feed/create, timed from the
 * POST until its queue answers Completed, and the asset-sources process's peak RSS (VmHWM) over the run.
 * Baseline, in the same run: the bare csv-parse (the parser the feed reader uses) reading the same
 * bytes from the same server in a process of its own, counting rows; its rows/s and peak RSS.
 */
const ROWS = Number(process.env.BENCH_FEED_ROWS ?? 1_000_000);
const ORG_ID = 'bench-feeds';
/** A million rows on a busy machine take longer than the harness's default ten minutes. */
const INGEST_DEADLINE_MS = 60 * 60_000;
const execFileAsync = promisify(execFile);

const COLUMNS = ['sku', 'title', 'description', 'link', 'image_link', 'price', 'brand', 'category', 'availability', 'gtin'];

/** One product row of about 300 bytes, with a quoted field holding a comma. */
function productRow(i: number): string {
  const sku = `SKU-${String(i).padStart(8, '0')}`;
  return [
    sku,
    `Product ${i} in colour ${i % 17}`,
    `"Comfortable, durable item number ${i}; machine washable and made from recycled material of grade ${i % 9}"`,
    `https://shop.example.com/p/${sku}`,
    `https://cdn.example.com/images/${sku}.jpg`,
    `${(i % 500) + 0.99} USD`,
    `Brand ${i % 120}`,
    `Apparel > Category ${i % 40} > Sub ${i % 7}`,
    i % 11 === 0 ? 'out of stock' : 'in stock',
    String(400_000_000_000 + i),
  ].join(',');
}

async function writeFeed(path: string, rows: number): Promise<void> {
  const out = createWriteStream(path);
  out.write(`${COLUMNS.join(',')}\n`);
  let chunk = '';
  for (let i = 0; i < rows; i++) {
    chunk += `${productRow(i)}\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      chunk = '';
    }
  }
  out.end(chunk);
  await finished(out);
}

/** Peak resident set of a process so far (VmHWM), in MiB. */
async function peakRssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]);
  return kb / 1024;
}

async function main(): Promise<void> {
  await withTeardown(async (defer) => {
    const work = await mkdtemp(join(tmpdir(), 'bench-feed-'));
    defer('remove the feed file', () => rm(work, { recursive: true, force: true }));
    const feedPath = join(work, 'products.csv');
    await writeFeed(feedPath, ROWS);
    const bytes = (await stat(feedPath)).size;
    console.log(`feed: ${ROWS} rows, ${bytes} bytes (${(bytes / ROWS).toFixed(0)} bytes per row), ${COLUMNS.length} columns`);

    const server: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/csv', 'content-length': String(bytes) });
      createReadStream(feedPath).pipe(res);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    defer('stop the feed server', () => new Promise<void>((done) => server.close(() => done())));
    const feedHost = `127.0.0.1:${(server.address() as AddressInfo).port}`;

    const s3 = await startObjectStore(defer);
    const platform = await startPlatform('benchfeed', defer, {
      services: ['storage-library', 'asset-sources'],
      env: {
        S3_ENDPOINT: s3.endpoint,
        OUTBOUND_ALLOWLIST: `${feedHost},${s3.hostPort}`,
        FEED_INGEST_MAX_BYTES: String(bytes * 2),
        FEED_SCHEDULE_SWEEP_MS: '0',
      },
    });
    const api = apiClient(platform.gatewayUrl);
    const { apiKey, accountId } = await seedRetailerOrg(api, ORG_ID);
    const assetSourcesPid = platform.pids['asset-sources'];
    if (assetSourcesPid === undefined) throw new Error('asset-sources did not start');

    const busy = await machineBusyFraction();
    console.log(`machine busy before measuring: ${(busy * 100).toFixed(0)}% of all cores`);

    // The subject: create, then the queue from Queued to Completed.
    const rssBefore = await peakRssMiB(assetSourcesPid);
    const cpuBefore = cpuTimeMs(assetSourcesPid) ?? NaN;
    const begin = performance.now();
    const created = expectJson<{ id: number; queueId: string }>(
      await api('POST', `/v2/accounts/${accountId}/asset-sources/feed/create`, {
        token: apiKey,
        json: {
          assetSourceName: 'Bench products',
          url: `http://${feedHost}/products.csv`,
          urlType: 'http',
          contentType: 'csv',
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
      'create feed source',
    );
    const done = await settleQueue(api, apiKey, created.queueId, INGEST_DEADLINE_MS);
    const ingestSeconds = (performance.now() - begin) / 1000;
    const ingestCpuMs = (cpuTimeMs(assetSourcesPid) ?? NaN) - cpuBefore;
    const ingestPeak = await peakRssMiB(assetSourcesPid);
    if (done.totalProcessed !== ROWS) throw new Error(`the run read ${done.totalProcessed} rows, not ${ROWS}: ${done.message}`);
    const detail = expectJson<{ rowCount: number }>(
      await api('GET', `/v2/accounts/${accountId}/asset-sources/${created.id}`, { token: apiKey }),
      200,
      'detail',
    );
    if (detail.rowCount !== ROWS) throw new Error(`the source serves ${detail.rowCount} rows, not ${ROWS}`);

    // The baseline: csv-parse alone over the same bytes from the same server.
    const { stdout } = await execFileAsync(
      process.execPath,
      ['--import', 'tsx', resolve(__dirname, 'harness/bare-csv-parse.ts'), `http://${feedHost}/products.csv`],
      {
        maxBuffer: 1 << 20,
      },
    );
    const bare = JSON.parse(stdout) as { rows: number; seconds: number; peakRssMiB: number; cpuMs: number };
    if (bare.rows !== ROWS) throw new Error(`csv-parse counted ${bare.rows} rows, not ${ROWS}`);

    const ingestRate = ROWS / ingestSeconds;
    const bareRate = bare.rows / bare.seconds;
    console.log(`message: ${done.message}`);
    console.table({
      'ingest to Completed (subject)': {
        seconds: ingestSeconds.toFixed(1),
        'rows/s': Math.round(ingestRate),
        'peak RSS MiB': ingestPeak.toFixed(0),
        'CPU s (asset-sources)': (ingestCpuMs / 1000).toFixed(1),
      },
      'bare csv-parse (baseline)': {
        seconds: bare.seconds.toFixed(1),
        'rows/s': Math.round(bareRate),
        'peak RSS MiB': bare.peakRssMiB.toFixed(0),
        'CPU s (asset-sources)': '',
      },
    });
    console.log(
      `ratio rows/s subject/baseline: ${(ingestRate / bareRate).toFixed(3)} (goal at least 0.5); ` +
        `asset-sources peak RSS ${ingestPeak.toFixed(0)} MiB (before the run ${rssBefore.toFixed(0)} MiB; goal at most 256)`,
    );
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
