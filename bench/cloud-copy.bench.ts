import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Client } from 'minio';
import { cpuSince, cpuSnapshot, findPidByCommand, machineBusyFraction } from './harness/cpu-time';
import { apiClient, expectJson } from './harness/http-api';
import { percentile } from './harness/percentiles';
import { startObjectStore, startPlatform } from './harness/platform';
import { seedRetailerOrg } from './harness/seed';
import { QUEUE_POLL_MS, settleQueue } from './harness/queue';
import { withTeardown } from './harness/teardown';

/**
 * A cloud copy of 50 objects of 10 MB (500 MB of random bytes) from a customer's bucket into the
 * asset library: POST /accounts/:accountId/cloud/:serviceId through the gateway -> storage-library
 * queues it -> storage-worker streams each object from the customer's endpoint into the library,
 * timed from the POST to the queue's Completed; beside a plain minio client in this process
 * streaming getObject -> putObject for the same objects between the same two buckets, one object at
 * a time like the worker. Both buckets live on one embedded S3 server, in a process of its own.
 */
const OBJECTS = 50;
const OBJECT_BYTES = 10_000_000;
const RUNS = 3;
const ORG_ID = 'bench-cloud';
const LIBRARY_BUCKET = 'bench-library';
const CUSTOMER_BUCKET = 'bench-customer';
/** The customer's root (rootDir `<bucket>/<prefix>`) and the folder copied from it. */
const CUSTOMER_ROOT = 'source';
const FOLDER = 'data';
/** Where the baseline writes in the library bucket, beside (not inside) the accounts' libraries. */
const BASELINE_PREFIX = 'baseline';
const MB = 1_000_000;

const names = Array.from({ length: OBJECTS }, (_, i) => `clip-${String(i).padStart(2, '0')}.mp4`);

interface Run {
  seconds: number;
  cpuMs: Record<string, number>;
}

async function main(): Promise<void> {
  const totalBytes = OBJECTS * OBJECT_BYTES;
  console.log(
    `cloud copy: ${OBJECTS} objects of ${OBJECT_BYTES / MB} MB (${totalBytes / MB} MB), ${RUNS} copies through the API and ${RUNS} minio client copies`,
  );

  await withTeardown(async (defer) => {
    const s3 = await startObjectStore(defer);
    const platform = await startPlatform('bench', defer, {
      services: ['storage-library'],
      workers: ['storage-worker'],
      // The customer's endpoint is this loopback server, which the outbound guard refuses unless listed.
      env: { S3_ENDPOINT: s3.endpoint, S3_BUCKET: LIBRARY_BUCKET, OUTBOUND_ALLOWLIST: s3.hostPort },
    });
    const api = apiClient(platform.gatewayUrl);
    const { apiKey, accountId } = await seedRetailerOrg(api, ORG_ID);

    const { hostname, port } = new URL(s3.endpoint);
    const client = new Client({
      endPoint: hostname,
      port: Number(port),
      useSSL: false,
      accessKey: 'S3RVER',
      secretKey: 'S3RVER',
      region: 'us-east-1',
      pathStyle: true,
    });
    await client.makeBucket(CUSTOMER_BUCKET, 'us-east-1');
    const fillStarted = performance.now();
    for (const name of names) await client.putObject(CUSTOMER_BUCKET, `${CUSTOMER_ROOT}/${FOLDER}/${name}`, randomBytes(OBJECT_BYTES), OBJECT_BYTES);
    const fillSeconds = (performance.now() - fillStarted) / 1000;
    console.log(
      `filled ${CUSTOMER_BUCKET}/${CUSTOMER_ROOT}/${FOLDER} with ${totalBytes / MB} MB in ${fillSeconds.toFixed(1)} s (random bytes generated on the way)`,
    );

    const service = expectJson<{ id: number }>(
      await api('POST', `/accounts/${accountId}/cloud`, {
        token: apiKey,
        json: {
          name: 'Bench customer bucket',
          serviceType: 'objstore',
          rootDir: `${CUSTOMER_BUCKET}/${CUSTOMER_ROOT}`,
          accessKey: 'S3RVER',
          secreteKey: 'S3RVER',
          endpoint: s3.endpoint,
        },
      }),
      200,
      'create cloud service',
    );

    const pids: Record<string, number> = { ...platform.pids, 's3-server': s3.pid, 'load generator': process.pid };
    for (const name of ['mariadbd', 'nats-server']) {
      const pid = findPidByCommand(name);
      if (pid !== undefined) pids[name] = pid;
    }

    const busy = await machineBusyFraction();
    console.log(`machine busy before measuring: ${(busy * 100).toFixed(0)}% of all cores`);

    const copies: Run[] = [];
    const baselines: Run[] = [];
    for (let run = 0; run < RUNS; run++) {
      // The subject: one copy request for the folder, from the POST to Completed. Later runs overwrite the same keys.
      let before = cpuSnapshot(pids);
      let begin = performance.now();
      const { queueId } = expectJson<{ queueId: string }>(
        await api('POST', `/accounts/${accountId}/cloud/${service.id}`, { token: apiKey, json: { path: '', files: [], folders: [FOLDER] } }),
        200,
        'copy',
      );
      const done = await settleQueue(api, apiKey, queueId);
      copies.push({ seconds: (performance.now() - begin) / 1000, cpuMs: cpuSince(pids, before) });
      if (done.totalProcessed !== OBJECTS || done.message !== `Copied ${OBJECTS} of ${OBJECTS} files.`)
        throw new Error(`the copy reported ${done.totalProcessed} of ${done.totalItems}: ${done.message}`);

      // The baseline: the same objects, streamed by the client from one bucket into the other, one at a time.
      before = cpuSnapshot(pids);
      begin = performance.now();
      for (const name of names) {
        const source = await client.getObject(CUSTOMER_BUCKET, `${CUSTOMER_ROOT}/${FOLDER}/${name}`);
        await client.putObject(LIBRARY_BUCKET, `${BASELINE_PREFIX}/${FOLDER}/${name}`, source, OBJECT_BYTES, { 'Content-Type': 'video/mp4' });
      }
      baselines.push({ seconds: (performance.now() - begin) / 1000, cpuMs: cpuSince(pids, before) });
      const [copy, base] = [copies[run] as Run, baselines[run] as Run];
      console.log(
        `run ${run + 1}: copy through the API ${copy.seconds.toFixed(2)} s (${(totalBytes / MB / copy.seconds).toFixed(1)} MB/s); minio client ${base.seconds.toFixed(2)} s (${(totalBytes / MB / base.seconds).toFixed(1)} MB/s)`,
      );
    }

    // Every object whole on both sides: the library's copy, the baseline's copy and the source have the same size.
    const mismatched: string[] = [];
    for (const name of names) {
      const sizes = await Promise.all([
        client.statObject(CUSTOMER_BUCKET, `${CUSTOMER_ROOT}/${FOLDER}/${name}`),
        client.statObject(LIBRARY_BUCKET, `accounts/${accountId}/${FOLDER}/${name}`),
        client.statObject(LIBRARY_BUCKET, `${BASELINE_PREFIX}/${FOLDER}/${name}`),
      ]).then((stats) => stats.map((stat) => stat.size));
      if (sizes.some((size) => size !== OBJECT_BYTES)) mismatched.push(`${name}: ${sizes.join(' / ')}`);
    }
    if (mismatched.length > 0) throw new Error(`sizes differ (source / library / baseline): ${mismatched.join('; ')}`);
    console.log(`sizes match: ${OBJECTS} objects of ${OBJECT_BYTES} bytes in the source, the library and the baseline's copy`);

    const median = (values: number[]) => percentile(Float64Array.from(values).sort(), 0.5);
    const rate = (runs: Run[]) => runs.map((r) => totalBytes / MB / r.seconds);
    const line = (label: string, runs: Run[]) =>
      `${label.padEnd(34)}${median(rate(runs)).toFixed(1).padStart(7)} (${Math.min(...rate(runs)).toFixed(1)}–${Math.max(...rate(runs)).toFixed(1)})        ${median(
        runs.map((r) => r.seconds),
      ).toFixed(2)} (${Math.min(...runs.map((r) => r.seconds)).toFixed(2)}–${Math.max(...runs.map((r) => r.seconds)).toFixed(2)})`;
    console.log('');
    console.log(`${''.padEnd(34)}MB/s (median; min–max)   seconds (median; min–max)`);
    console.log(line('minio client copy (baseline)', baselines));
    console.log(line('copy through the API (subject)', copies));
    console.log(`ratio MB/s subject/baseline: ${(median(rate(copies)) / median(rate(baselines))).toPrecision(2)}x`);
    console.log(`queue polled every ${QUEUE_POLL_MS} ms, so the subject's times are up to ${QUEUE_POLL_MS} ms long`);
    for (const [label, runs] of [
      ['subject', copies],
      ['baseline', baselines],
    ] as const) {
      const parts = Object.keys(pids).map((name) => [name, median(runs.map((r) => ((r.cpuMs[name] ?? NaN) / totalBytes) * MB))] as const);
      const total = parts.reduce((sum, [, value]) => sum + (Number.isNaN(value) ? 0 : value), 0);
      console.log(
        `CPU ms/MB, ${label} (median of runs): ${parts.map(([name, value]) => `${name} ${value.toFixed(2)}`).join(', ')} (total ${total.toFixed(2)})`,
      );
    }
  });
}

if (require.main === module)
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exitCode = 1;
  });
