import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { JOB_CONCURRENCY_CAPS } from '@contracts/domain';
import { deletePrefixedStreams, dropPrefixedSchemas, freePortBlock, uniquePrefix } from '@platform/testing';
import { APPS } from './apps.registry';

jest.setTimeout(300_000);

const ADMIN_TOKEN = 'launcher-replicas-admin-token-0123';
const UPLOADS = 24;

/** One JSON log line of a process the launcher started, with the process's name from its prefix. */
interface AppLine {
  process: string;
  msg: string;
  queueId?: string;
  method?: string;
}

/**
 * `npm start -- --replicas gateway=2,storage-library=2,storage-worker=3`: two gateways, two replicas of
 * one service, three of a worker, under a burst of upload jobs sent through both gateways. The work
 * spreads over the replicas (gRPC calls over both storage-library replicas, jobs over the workers),
 * and every job runs exactly once.
 */
describe('npm start -- --replicas', () => {
  const prefix = uniquePrefix('replicas');
  const dataDir = mkdtempSync(join(tmpdir(), 'launcher-replicas-s3-'));
  let launcher: ChildProcess;
  let output = '';
  let gateways: string[];

  const lines = (): AppLine[] =>
    output.split('\n').flatMap((line) => {
      const match = /^(\S+) +\| (\{.*\})$/.exec(line);
      if (!match || match[1] === 'launcher') return [];
      try {
        return [{ process: match[1], ...(JSON.parse(match[2]) as Omit<AppLine, 'process'>) }];
      } catch {
        return [];
      }
    });
  const waitFor = async (condition: () => boolean, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    return condition();
  };
  const call = async (base: string, method: string, path: string, init: { token: string; json?: unknown; body?: FormData }) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${init.token}`, ...(init.json ? { 'content-type': 'application/json' } : {}) },
      body: init.body ?? (init.json ? JSON.stringify(init.json) : undefined),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
  };

  beforeAll(async () => {
    const [httpBase, metricsBase] = [await freePortBlock(2), await freePortBlock(2)];
    const grpcBase = await freePortBlock(APPS.length);
    const workerHealthBase = await freePortBlock(APPS.length + 4);
    gateways = [0, 1].map((i) => `http://127.0.0.1:${httpBase + i}`);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(httpBase),
      METRICS_PORT: String(metricsBase),
      S3_EMBEDDED_PORT: String(await freePortBlock(1)),
      AD_SERVER_PORT: String(await freePortBlock(1)),
      S3_DATA_DIR: dataDir,
      GRPC_PORT_BASE: String(grpcBase),
      WORKER_HEALTH_PORT_BASE: String(workerHealthBase),
      MYSQL_SCHEMA_PREFIX: prefix,
      NATS_PREFIX: prefix,
      ADMIN_TOKEN,
      // Debug: each gRPC replica logs the calls it served, each worker the jobs it ran (at info).
      LOG_LEVEL: 'debug',
    };
    delete env.S3_ENDPOINT;
    delete env.SCHEMA_MIGRATIONS;
    launcher = spawn(process.execPath, ['--import', 'tsx', 'tools/launcher/launch.ts', '--replicas', 'gateway=2,storage-library=2,storage-worker=3'], {
      cwd: resolve(__dirname, '../..'),
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    launcher.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    launcher.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const child = launcher;
    // The gateways' addresses are logged just after "all apps are up", possibly in a later chunk: wait for them too.
    await waitFor(
      () =>
        (/all \d+ apps are up/.test(output) && gateways.every((g) => output.includes(`gateway: http://localhost:${new URL(g).port}`))) ||
        child.exitCode !== null,
      240_000,
    );
  }, 270_000);

  afterAll(async () => {
    // SIGINT first, then SIGKILL, each to the pid this test started.
    if (launcher && launcher.exitCode === null) {
      launcher.kill('SIGINT');
      await waitFor(() => launcher.exitCode !== null, 20_000);
      if (launcher.exitCode === null) launcher.kill('SIGKILL');
    }
    rmSync(dataDir, { recursive: true, force: true });
    await Promise.all([dropPrefixedSchemas(prefix), deletePrefixedStreams(prefix)]);
  });

  it('runs every replica asked for, each gateway on its own port, and names them <app>#<i>', async () => {
    expect(output).toMatch(/all \d+ apps are up \(\d+ processes\)/);
    const started = new Set(
      output
        .split('\n')
        .map((line) => /"msg":"app started","app":"([^"]+)"/.exec(line)?.[1])
        .filter(Boolean),
    );
    for (const name of ['gateway#1', 'gateway#2', 'storage-library#1', 'storage-library#2', 'storage-worker#1', 'storage-worker#2', 'storage-worker#3'])
      expect({ name, started: started.has(name) }).toEqual({ name, started: true });
    for (const gateway of gateways) {
      expect(output).toContain(`gateway: http://localhost:${new URL(gateway).port}`);
      expect((await fetch(`${gateway}/readyz`)).status).toBe(200);
    }
    // The second replica of a schema owner waited for the first one's migrations instead of running its own.
    expect(
      lines()
        .filter((line) => line.process === 'storage-library#2')
        .map((line) => line.msg),
    ).toContain('schema is current; this replica migrates nothing');
  });

  it('shares a burst of upload jobs from both gateways across the workers and the storage-library replicas, each job run once', async () => {
    const orgId = (await call(gateways[0], 'POST', '/admin/v1/orgs', { token: ADMIN_TOKEN, json: { name: 'Replica Co', isRetailer: true } })).body.orgId;
    // An account may hold only JOB_CONCURRENCY_CAPS['asset-upload'] unfinished uploads at once (429 beyond):
    // the burst is spread over enough accounts to stay below that cap.
    const accountCount = Math.ceil(UPLOADS / (JOB_CONCURRENCY_CAPS['asset-upload'] - 2));
    const accountIds: number[] = [];
    for (let a = 0; a < accountCount; a += 1)
      accountIds.push(
        (await call(gateways[0], 'POST', `/admin/v1/orgs/${orgId}/accounts`, { token: ADMIN_TOKEN, json: { name: `Burst ${a}` } })).body.accountId as number,
      );
    const apiKey = (await call(gateways[1], 'POST', '/admin/v1/api-keys', { token: ADMIN_TOKEN, json: { orgId, permissions: ['*'] } })).body.apiKey as string;
    expect(apiKey).toEqual(expect.any(String));

    const queued = await Promise.all(
      Array.from({ length: UPLOADS }, async (_, i) => {
        const form = new FormData();
        form.append('path', 'burst');
        form.append('file', new Blob([Buffer.from(`file ${i}`)]), `file-${i}.txt`);
        const answer = await call(gateways[i % 2], 'POST', `/v2/accounts/${accountIds[i % accountCount]}/asset-library`, { token: apiKey, body: form });
        expect(answer.status).toBe(200);
        return answer.body.queueId as string;
      }),
    );
    expect(new Set(queued).size).toBe(UPLOADS);

    // Every job reaches Completed, read through either gateway.
    const statuses = new Map<string, string>();
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline && !(statuses.size === UPLOADS && [...statuses.values()].every((status) => status === 'Completed'))) {
      await Promise.all(
        queued.map(async (queueId, i) => {
          const answer = await call(gateways[(i + 1) % 2], 'GET', `/v2/queues/${queueId}/status`, { token: apiKey });
          statuses.set(queueId, String(answer.body.status));
        }),
      );
      await new Promise((r) => setTimeout(r, 300));
    }
    expect([...statuses.values()].filter((status) => status !== 'Completed')).toEqual([]);

    // Each job started and completed once, on one worker replica; the burst used more than one replica.
    const jobLines = lines().filter((line) => line.process.startsWith('storage-worker#') && line.queueId && queued.includes(line.queueId));
    const runsOf = (msg: string) => {
      const runs = new Map<string, string[]>();
      for (const line of jobLines.filter((l) => l.msg === msg)) runs.set(line.queueId as string, [...(runs.get(line.queueId as string) ?? []), line.process]);
      return runs;
    };
    const started = runsOf('job started');
    const completed = runsOf('job completed');
    expect([...started.keys()].sort()).toEqual([...queued].sort());
    expect([...started.values()].filter((runs) => runs.length !== 1)).toEqual([]);
    expect([...completed.values()].filter((runs) => runs.length !== 1)).toEqual([]);
    const workersUsed = new Set([...completed.values()].flat());
    expect(workersUsed.size).toBeGreaterThanOrEqual(2);

    // Both storage-library replicas served gRPC calls (the gateways round-robin over them).
    const served = lines().filter((line) => line.msg === 'gRPC call served' && line.process.startsWith('storage-library#'));
    expect(new Set(served.map((line) => line.process))).toEqual(new Set(['storage-library#1', 'storage-library#2']));
  });
});
