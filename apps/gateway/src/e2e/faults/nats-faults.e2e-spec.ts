import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedS3, type EmbeddedS3 } from '@platform/s3';
import { startPrivateMariaDb, startPrivateNats, type PrivateMariaDb, type PrivateNats } from '@platform/testing';
import { admin, E2eSystem, Http, httpClient, startE2eSystem } from '../e2e-system';
import { zipOf } from '../zip-fixture';
import { sleep } from './fault-load';

jest.setTimeout(240_000);

const LIBRARY_BUCKET = 'library-natsfault';
const CUSTOMER_BUCKET = 'customer-natsfault';
const OUTAGE_MS = 4_000;
const TERMINAL = new Set(['Completed', 'Failed']);

interface QueueDetail {
  id: string;
  message: string;
  status: string;
  totalItems: number;
  totalProcessed: number;
}

interface Job {
  name: string;
  queueId: string;
  /** What the library folder must hold afterwards, each file once and whole. */
  folder: string;
  files: { name: string; data: Buffer }[];
  /** Every status the queue view answered, in order, with its progress. */
  seen: string[];
}

/**
 * Upload extractions and a cloud copy (gateway, storage-library, storage-worker: real processes) on a
 * NATS and a MariaDB of their own, with NATS killed while the jobs run and a job accepted while it is
 * down. JetStream keeps its streams on file, so the restarted server still has every request.
 */
describe('NATS restarted during jobs', () => {
  let mariadb: PrivateMariaDb;
  let nats: PrivateNats;
  let s3: EmbeddedS3;
  let s3Dir: string;
  let system: E2eSystem;
  let http: Http;
  let orgId: string;
  let accountId: number;
  let apiKey: string;

  beforeAll(async () => {
    s3Dir = await mkdtemp(join(tmpdir(), 'natsfault-s3-'));
    [mariadb, nats, s3] = await Promise.all([startPrivateMariaDb('natsfault'), startPrivateNats('natsfault'), startEmbeddedS3({ port: 0, directory: s3Dir })]);
    const { hostname, port } = new URL(s3.endpoint);
    system = await startE2eSystem('natsfault', {
      services: ['channels-plans', 'storage-library'],
      workers: ['storage-worker'],
      infrastructure: { mysqlUrl: mariadb.url, natsUrl: nats.url },
      env: {
        S3_ENDPOINT: s3.endpoint,
        S3_BUCKET: LIBRARY_BUCKET,
        OUTBOUND_ALLOWLIST: `${hostname}:${port}`,
        // A job whose acknowledgement was lost with the connection is delivered again after this long.
        JOB_ACK_WAIT_MS: '3000',
      },
    });
    http = httpClient(system.baseUrl);
    orgId = await admin(http).createOrg({ name: 'Jobs Co', isRetailer: true });
    accountId = await admin(http).createAccount(orgId, 'Jobs');
    ({ apiKey } = await admin(http).createKey({ orgId, permissions: ['*'] }));
  });

  afterAll(async () => {
    if (nats?.server.running === false) await nats.server.start();
    await system?.stop();
    await Promise.all([mariadb?.close(), nats?.close(), s3?.close()]);
    if (s3Dir) await rm(s3Dir, { recursive: true, force: true });
  });

  const filesOf = (prefix: string, count: number) =>
    Array.from({ length: count }, (_, i) => ({ name: `${prefix}-${String(i).padStart(4, '0')}.png`, data: randomBytes(1_000 + i) }));

  async function uploadZip(folder: string, files: Job['files']): Promise<Job> {
    const form = new FormData();
    form.append('path', folder);
    form.append('file', new Blob([await zipOf(files)]), `${folder}.zip`);
    const response = await fetch(`${system.baseUrl}/v2/accounts/${accountId}/asset-library`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}` },
      body: form,
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`upload ${folder} answered ${response.status} ${text}`);
    return { name: `upload ${folder}`, queueId: (JSON.parse(text) as { queueId: string }).queueId, folder, files, seen: [] };
  }

  async function copyFromBucket(folder: string, files: Job['files']): Promise<Job> {
    const customer = s3.client();
    await customer.makeBucket(CUSTOMER_BUCKET, 'us-east-1');
    await Promise.all(files.map((file) => customer.putObject(CUSTOMER_BUCKET, `root/${folder}/${file.name}`, file.data)));
    const service = await http<{ id: number }>('POST', `/accounts/${accountId}/cloud`, {
      key: apiKey,
      json: { name: 'Bucket', serviceType: 'objstore', rootDir: `${CUSTOMER_BUCKET}/root`, accessKey: 'S3RVER', secreteKey: 'S3RVER', endpoint: s3.endpoint },
    });
    expect(service.status).toBe(200);
    const queued = await http<{ queueId: string }>('POST', `/accounts/${accountId}/cloud/${service.body.id}`, {
      key: apiKey,
      json: { files: [], folders: [folder] },
    });
    expect(queued.status).toBe(200);
    return { name: `copy ${folder}`, queueId: queued.body.queueId, folder, files, seen: [] };
  }

  /** Reads each job's queue view until every one is terminal and has stayed so for a while; records every status seen. */
  async function watch(jobs: Job[], settleMs = 3_000, timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let allTerminalSince: number | undefined;
    for (;;) {
      for (const job of jobs) {
        const view = await http<QueueDetail>('GET', `/v2/queues/${job.queueId}/status`, { key: apiKey });
        // While NATS is down the gateway reads identity from MySQL; answers stay 200.
        expect(view.status).toBe(200);
        const state = `${view.body.status} ${view.body.totalProcessed}/${view.body.totalItems}`;
        if (job.seen.at(-1) !== state) job.seen.push(state);
      }
      const allTerminal = jobs.every((job) => TERMINAL.has((job.seen.at(-1) ?? '').split(' ')[0]));
      allTerminalSince = allTerminal ? (allTerminalSince ?? Date.now()) : undefined;
      if (allTerminalSince !== undefined && Date.now() - allTerminalSince >= settleMs) return;
      if (Date.now() > deadline) throw new Error(`jobs not settled: ${JSON.stringify(jobs.map((job) => [job.name, job.seen.at(-1)]))}`);
      await sleep(150);
    }
  }

  async function libraryNames(folder: string): Promise<string[]> {
    const names: string[] = [];
    let nextKey = '';
    do {
      const page = await http<{ files: { name: string }[]; nextKey: string }>(
        'GET',
        `/v2/accounts/${accountId}/asset-library?${new URLSearchParams({ prefix: folder, limit: '100', ...(nextKey ? { nextKey } : {}) })}`,
        { key: apiKey },
      );
      expect(page.status).toBe(200);
      names.push(...page.body.files.map((file) => file.name));
      nextKey = page.body.nextKey;
    } while (nextKey);
    return names;
  }

  it('brings every accepted job to exactly one terminal state, each file once and whole, across a NATS SIGKILL and restart', async () => {
    const jobs = [await uploadZip('zip-a', filesOf('a', 300)), await uploadZip('zip-b', filesOf('b', 300)), await copyFromBucket('copied', filesOf('c', 150))];
    // Kill the bus once the work is under way, not before it started.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const view = await http<QueueDetail>('GET', `/v2/queues/${jobs[0].queueId}/status`, { key: apiKey });
      if (view.body.totalProcessed > 0 || TERMINAL.has(view.body.status)) break;
      if (Date.now() > deadline) throw new Error('the first job made no progress');
      await sleep(100);
    }
    const killedAt = Date.now();
    await nats.server.kill();
    // The fault met work in flight: some job had not finished when the bus went away.
    const unfinishedAtKill: string[] = [];
    for (const job of jobs) {
      const view = await http<QueueDetail>('GET', `/v2/queues/${job.queueId}/status`, { key: apiKey });
      if (!TERMINAL.has(view.body.status)) unfinishedAtKill.push(`${job.name}: ${view.body.status} ${view.body.totalProcessed}/${view.body.totalItems}`);
    }
    expect(unfinishedAtKill.length).toBeGreaterThan(0);
    // Accepted while the bus is down: the queue row and its request commit together in MySQL, the outbox relays it later.
    jobs.push(await uploadZip('zip-during', filesOf('d', 100)));
    // A write to a cached view answers too: its notice to the gateways goes unconfirmed after at most
    // 2 s, the change stands, and the gateway, whose caches are bypassed while NATS is down, reads it back.
    const channels = `/v2/org/${orgId}/retail-media-channels`;
    const channel = { adServerId: 'gam', type: 'Off-site', activationConfiguration: { tagGeneration: true, creativeGeneration: false } };
    const writeStartedAt = Date.now();
    const created = await http<{ idx: number }>('POST', channels, { key: apiKey, json: { ...channel, name: 'Written while NATS is down' } });
    const writeMs = Date.now() - writeStartedAt;
    expect(created.status).toBe(201);
    const listed = await http<{ data: { idx: number }[] }>('GET', `${channels}?limit=100`, { key: apiKey });
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).toContain('Written while NATS is down');
    await sleep(Math.max(0, OUTAGE_MS - (Date.now() - killedAt)));
    await nats.server.start();
    const restartedAt = Date.now();

    await watch(jobs);
    process.stdout.write(
      `NATS restart during jobs (down ${restartedAt - killedAt} ms): ${JSON.stringify({ cachedViewWriteMs: writeMs, unfinishedAtKill, jobs: jobs.map((job) => ({ job: job.name, seen: job.seen })) })}\n`,
    );

    expect(writeMs).toBeLessThan(5_000);
    for (const job of jobs) {
      // Exactly one terminal state: the first terminal answer is the only one, and it is the last.
      const terminal = job.seen.filter((state) => TERMINAL.has(state.split(' ')[0]));
      expect({ job: job.name, terminal }).toEqual({ job: job.name, terminal: [`Completed ${job.files.length}/${job.files.length}`] });
      expect(job.seen.at(-1)).toBe(terminal[0]);
      // Progress never went backwards as the view saw it.
      const processed = job.seen.map((state) => Number(state.split(' ')[1].split('/')[0]));
      expect(processed).toEqual([...processed].sort((a, b) => a - b));
      // Each file once, and whole.
      expect(await libraryNames(job.folder)).toEqual(job.files.map((file) => file.name));
      for (const file of [job.files[0], job.files[job.files.length - 1]]) {
        const served = await fetch(`${system.baseUrl}/files/accounts/${accountId}/${job.folder}/${file.name}`);
        expect(Buffer.from(await served.arrayBuffer()).equals(file.data)).toBe(true);
      }
    }
  });
});
