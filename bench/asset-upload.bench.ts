import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { ZipFile } from 'yazl';
import { cpuSince, cpuSnapshot, findPidByCommand, machineBusyFraction } from './harness/cpu-time';
import { apiClient, expectJson, type Api } from './harness/http-api';
import { percentile } from './harness/percentiles';
import { startObjectStore, startPlatform } from './harness/platform';
import { seedRetailerOrg } from './harness/seed';
import { QUEUE_POLL_MS, settleQueue } from './harness/queue';
import { withTeardown } from './harness/teardown';

/**
 * Upload of a zip of 2,000 small PNGs to the asset library (multipart POST through the gateway ->
 * storage-library stages it -> storage-worker extracts each entry into the object store), timed from
 * the POST to the queue's Completed; beside Debian's `unzip` extracting the same archive into a
 * temporary directory, in the same run. The object store is the embedded S3 server in its own process.
 */
const FILES = 2_000;
const RUNS = 3;
const ORG_ID = 'bench-uploads';
const LIBRARY_BUCKET = 'bench-library';
/** 32×32 RGB noise: a real PNG of about 3 KB that deflate cannot shrink (the zip stays far below the ratio limit). */
const SIDE = 32;

const execFileAsync = promisify(execFile);

async function smallPngs(count: number): Promise<{ name: string; data: Buffer }[]> {
  const images: { name: string; data: Buffer }[] = [];
  for (let i = 0; i < count; i++) {
    const data = await sharp(randomBytes(SIDE * SIDE * 3), { raw: { width: SIDE, height: SIDE, channels: 3 } })
      .png()
      .toBuffer();
    images.push({ name: `img-${String(i).padStart(4, '0')}.png`, data });
  }
  return images;
}

async function zipOf(entries: { name: string; data: Buffer }[]): Promise<Buffer> {
  const zip = new ZipFile();
  for (const entry of entries) zip.addBuffer(entry.data, entry.name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Every file name under a library folder, through the listing API (pages of 100). */
async function libraryNames(api: Api, apiKey: string, accountId: number, prefix: string): Promise<string[]> {
  const names: string[] = [];
  let nextKey = '';
  do {
    const query = new URLSearchParams({ prefix, limit: '100', ...(nextKey ? { nextKey } : {}) });
    const page = expectJson<{ files: { name: string }[]; nextKey: string }>(
      await api('GET', `/v2/accounts/${accountId}/asset-library?${query}`, { token: apiKey }),
      200,
      'list',
    );
    names.push(...page.files.map((file) => file.name));
    nextKey = page.nextKey;
  } while (nextKey);
  return names;
}

/** `times` after the command prints the shell's own and its children's user and system time. */
const shellTime = (text: string) =>
  text.match(/(\d+)m([\d.]+)s/g)?.map((t) => Number(/(\d+)m/.exec(t)?.[1]) * 60_000 + Number(/m([\d.]+)s/.exec(t)?.[1]) * 1000) ?? [];

interface Run {
  seconds: number;
  uploadSeconds?: number;
  cpuMs: Record<string, number>;
}

async function main(): Promise<void> {
  const { stdout: unzipPath } = await execFileAsync('sh', ['-c', 'command -v unzip || true']);
  if (!unzipPath.trim()) throw new Error('unzip is not installed (apt-get update && apt-get install -y unzip)');
  console.log(`asset upload: a zip of ${FILES} PNGs of ${SIDE}x${SIDE} px, ${RUNS} uploads to new folders and ${RUNS} runs of ${unzipPath.trim()}`);

  await withTeardown(async (defer) => {
    const images = await smallPngs(FILES);
    const archive = await zipOf(images);
    const imageBytes = images.reduce((sum, image) => sum + image.data.length, 0);
    console.log(`zip: ${archive.length} bytes, ${FILES} entries holding ${imageBytes} bytes (${(imageBytes / FILES).toFixed(0)} bytes per PNG)`);

    const s3 = await startObjectStore(defer);
    const platform = await startPlatform('bench', defer, {
      services: ['storage-library'],
      workers: ['storage-worker'],
      env: { S3_ENDPOINT: s3.endpoint, S3_BUCKET: LIBRARY_BUCKET, OUTBOUND_ALLOWLIST: s3.hostPort },
    });
    const api = apiClient(platform.gatewayUrl);
    const { apiKey, accountId } = await seedRetailerOrg(api, ORG_ID);

    const work = await mkdtemp(join(tmpdir(), 'bench-unzip-'));
    defer('remove unzip directory', () => rm(work, { recursive: true, force: true }));
    const archivePath = join(work, 'images.zip');
    await writeFile(archivePath, archive);

    const pids: Record<string, number> = { ...platform.pids, 's3-server': s3.pid, 'load generator': process.pid };
    for (const name of ['mariadbd', 'nats-server']) {
      const pid = findPidByCommand(name);
      if (pid !== undefined) pids[name] = pid;
    }

    const busy = await machineBusyFraction();
    console.log(`machine busy before measuring: ${(busy * 100).toFixed(0)}% of all cores`);

    const uploads: Run[] = [];
    const unzips: Run[] = [];
    for (let run = 0; run < RUNS; run++) {
      // The subject: the archive from the client to Completed, through every hop.
      const folder = `bench-zip-${run}`;
      const before = cpuSnapshot(pids);
      const begin = performance.now();
      const form = new FormData();
      form.append('path', folder);
      form.append('file', new Blob([archive]), 'images.zip');
      const response = await fetch(`${platform.gatewayUrl}/v2/accounts/${accountId}/asset-library`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}` },
        body: form,
      });
      const answer = (await response.json()) as { queueId?: string; detail?: string };
      if (response.status !== 200 || !answer.queueId) throw new Error(`upload answered ${response.status}: ${JSON.stringify(answer)}`);
      const uploadSeconds = (performance.now() - begin) / 1000;
      const done = await settleQueue(api, apiKey, answer.queueId);
      const seconds = (performance.now() - begin) / 1000;
      uploads.push({ seconds, uploadSeconds, cpuMs: cpuSince(pids, before) });
      if (done.totalItems !== FILES || done.totalProcessed !== FILES)
        throw new Error(`queue reported ${done.totalProcessed} of ${done.totalItems}: ${done.message}`);
      const names = await libraryNames(api, apiKey, accountId, folder);
      const expected = images.map((image) => image.name);
      if (names.length !== FILES || names.join() !== expected.join())
        throw new Error(`the library lists ${names.length} files under ${folder}, not the ${FILES} of the zip`);

      // The baseline: the same archive extracted by unzip into a directory of its own.
      const target = join(work, `out-${run}`);
      const unzipBegin = performance.now();
      const { stdout } = await execFileAsync('bash', ['-c', 'unzip -q "$0" -d "$1" && times', archivePath, target]);
      const unzipSeconds = (performance.now() - unzipBegin) / 1000;
      // The second line of `times`: user and system time of the shell's children (unzip).
      const [, , childUser = NaN, childSys = NaN] = shellTime(stdout);
      unzips.push({ seconds: unzipSeconds, cpuMs: { unzip: childUser + childSys } });
      const extracted = await readdir(target);
      if (extracted.length !== FILES) throw new Error(`unzip extracted ${extracted.length} files, not ${FILES}`);
      await rm(target, { recursive: true, force: true });

      console.log(
        `run ${run + 1}: upload + extraction ${seconds.toFixed(2)} s (POST answered after ${uploadSeconds.toFixed(2)} s), ${FILES} files listed; unzip ${unzipSeconds.toFixed(3)} s`,
      );
    }

    const median = (values: number[]) => percentile(Float64Array.from(values).sort(), 0.5);
    const range = (values: number[], digits: number) => `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
    const subjectSeconds = uploads.map((u) => u.seconds);
    const baselineSeconds = unzips.map((u) => u.seconds);
    console.log('');
    console.log(`                                 files/s (median; min–max)   seconds (median; min–max)`);
    console.log(
      `unzip (baseline)                 ${(FILES / median(baselineSeconds)).toFixed(0).padStart(7)} (${range(
        baselineSeconds.map((s) => FILES / s),
        0,
      )})            ${median(baselineSeconds).toFixed(3)} (${range(baselineSeconds, 3)})`,
    );
    console.log(
      `upload + extraction (subject)    ${(FILES / median(subjectSeconds)).toFixed(0).padStart(7)} (${range(
        subjectSeconds.map((s) => FILES / s),
        0,
      )})            ${median(subjectSeconds).toFixed(2)} (${range(subjectSeconds, 2)})`,
    );
    console.log(`POST answered (upload and staging, part of the subject): ${median(uploads.map((u) => u.uploadSeconds ?? NaN)).toFixed(2)} s median`);
    console.log(
      `ratio files/s subject/baseline: ${(median(baselineSeconds) / median(subjectSeconds)).toPrecision(2)}x (1/${(median(subjectSeconds) / median(baselineSeconds)).toFixed(0)})`,
    );
    console.log(`queue polled every ${QUEUE_POLL_MS} ms, so the subject's times are up to ${QUEUE_POLL_MS} ms long`);

    const perFile = (runs: Run[], name: string) => median(runs.map((r) => (r.cpuMs[name] ?? NaN) / FILES));
    const subjectParts = Object.keys(pids).map((name) => [name, perFile(uploads, name)] as const);
    const subjectTotal = subjectParts.reduce((sum, [, value]) => sum + (Number.isNaN(value) ? 0 : value), 0);
    console.log(
      `CPU ms/file, subject (median of runs): ${subjectParts.map(([name, value]) => `${name} ${value.toFixed(3)}`).join(', ')} (total ${subjectTotal.toFixed(3)})`,
    );
    console.log(`CPU ms/file, unzip (median of runs): ${perFile(unzips, 'unzip').toFixed(4)}`);
  });
}

if (require.main === module)
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exitCode = 1;
  });
