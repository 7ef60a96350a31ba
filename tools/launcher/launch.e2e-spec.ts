import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { deletePrefixedStreams, dropPrefixedSchemas, freePort, freePortBlock, isProcessAlive, uniquePrefix } from '@platform/testing';
import { APPS } from './apps.registry';

const ADMIN_TOKEN = 'launcher-e2e-admin-token-0123';

interface LaunchEvent {
  msg: string;
  app: string;
  pid: number;
  restart?: number;
  code?: number | null;
  signal?: string | null;
  restartInMs?: number;
}

describe('npm start (tools/launcher)', () => {
  const prefix = uniquePrefix('launch');
  const dataDir = mkdtempSync(join(tmpdir(), 'launcher-s3-'));
  let launcher: ChildProcess;
  let exited: Promise<number | null>;
  let output = '';
  let port: number;
  let s3Port: number;
  let metricsPort: number;

  /** The launcher's JSON lines (starts, deaths, returns), in order. */
  const events = (): LaunchEvent[] =>
    output
      .split('\n')
      .map((line) => /^launcher +\| (\{.*\})$/.exec(line)?.[1])
      .filter((json): json is string => json !== undefined)
      .map((json) => JSON.parse(json) as LaunchEvent);
  /** The pid each app runs as now: its latest start. */
  const currentPids = () =>
    new Map(
      events()
        .filter((e) => e.msg === 'app started')
        .map((e) => [e.app, e.pid]),
    );
  const waitFor = async (condition: () => boolean, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    return condition();
  };

  beforeAll(async () => {
    [port, s3Port, metricsPort] = [await freePort(), await freePort(), await freePort()];
    const adServerPort = await freePort();
    // GRPC_PORT_BASE moves the services' declared ports as a block (workers' health ports likewise), clear of a running system.
    const grpcBase = await freePortBlock(2 * APPS.length);
    const workerHealthBase = grpcBase + APPS.length;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      S3_EMBEDDED_PORT: String(s3Port),
      S3_DATA_DIR: dataDir,
      GRPC_PORT_BASE: String(grpcBase),
      WORKER_HEALTH_PORT_BASE: String(workerHealthBase),
      METRICS_PORT: String(metricsPort),
      AD_SERVER_PORT: String(adServerPort),
      MYSQL_SCHEMA_PREFIX: prefix,
      NATS_PREFIX: prefix,
      ADMIN_TOKEN,
      LOG_LEVEL: 'warn',
    };
    delete env.S3_ENDPOINT;
    launcher = spawn(process.execPath, ['--import', 'tsx', 'tools/launcher/launch.ts'], {
      cwd: resolve(__dirname, '../..'),
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    launcher.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    launcher.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const child = launcher;
    exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    await waitFor(() => /gateway: http:\/\/localhost:\d+/.test(output) || child.exitCode !== null, 120_000);
  }, 150_000);

  afterAll(async () => {
    // A failed assertion must not leave the system running: SIGINT first, then SIGKILL, each to the pid this test started.
    if (launcher && launcher.exitCode === null) {
      launcher.kill('SIGINT');
      await new Promise((r) => setTimeout(r, 5_000));
      if (launcher.exitCode === null) launcher.kill('SIGKILL');
    }
    rmSync(dataDir, { recursive: true, force: true });
    await Promise.all([dropPrefixedSchemas(prefix), deletePrefixedStreams(prefix)]);
  });

  it('brings up every app and the embedded S3 server and logs the gateway URL and every pid', async () => {
    expect(output).toContain(`gateway: http://localhost:${port}`);
    expect(output).toMatch(/all \d+ apps are up/);
    const present = APPS.filter((app) => existsSync(resolve(__dirname, '../..', app.entry))).map((app) => app.name);
    expect([...currentPids().keys()].sort()).toEqual(['s3', ...present].sort());

    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(ready.status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).status).toBe(200);
    const s3 = await fetch(`http://127.0.0.1:${s3Port}/`);
    expect(s3.status).toBeLessThan(500);
  });

  it('restarts a service killed with SIGKILL while the others keep answering; the gateway answers 503 for it meanwhile', async () => {
    const base = `http://127.0.0.1:${port}`;
    const json = { 'Content-Type': 'application/json' };
    const adminCall = async (path: string, body: object) => {
      const response = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { ...json, Authorization: `Bearer ${ADMIN_TOKEN}` },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(201);
      return (await response.json()) as Record<string, unknown>;
    };
    await adminCall('/admin/v1/orgs', { orgId: 'acme', name: 'Acme Retail', isRetailer: true, dimensionWhitelist: ['300x250'] });
    const { accountId } = await adminCall('/admin/v1/orgs/acme/accounts', { name: 'Acme US' });
    const { apiKey } = await adminCall('/admin/v1/api-keys', { orgId: 'acme', permissions: ['*'] });
    const asKey = { ...json, Authorization: `Bearer ${String(apiKey)}` };
    // templates' route and channels-plans' route. Each search names a filter of its own, so the gateway's
    // response cache (which answers a repeated search) never holds it and every search reaches templates.
    let search = 0;
    const searchTemplates = () =>
      fetch(`${base}/v2/accounts/${String(accountId)}/retail-campaigns/retail-templates?limit=5`, {
        method: 'POST',
        headers: asKey,
        body: JSON.stringify({ campaignName: `probe ${++search}` }),
      });
    let channel = 0;
    const createChannel = () =>
      fetch(`${base}/v2/org/acme/retail-media-channels`, {
        method: 'POST',
        headers: asKey,
        body: JSON.stringify({
          name: `Channel ${++channel}`,
          adServerId: 'onsite-rm',
          type: 'On-site',
          activationConfiguration: { tagGeneration: true, creativeGeneration: true },
          additionalConfiguration: { placementPrefix: 'acme-' },
        }),
      });
    expect((await searchTemplates()).status).toBe(200);
    expect((await createChannel()).status).toBe(201);

    const before = currentPids();
    const victim = before.get('templates') as number;
    expect(victim).toBeGreaterThan(0);
    process.kill(victim, 'SIGKILL');
    expect(await waitFor(() => events().some((e) => e.msg === 'app exited; restarting it' && e.pid === victim), 5_000)).toBe(true);
    expect(events().find((e) => e.msg === 'app exited; restarting it')).toMatchObject({
      app: 'templates',
      pid: victim,
      code: null,
      signal: 'SIGKILL',
      restart: 1,
      restartInMs: 500,
    });

    // While templates is down: its route fails fast with 503, channels-plans' route still works.
    const started = Date.now();
    const down = await searchTemplates();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(down.status).toBe(503);
    expect(down.headers.get('content-type')).toContain('application/problem+json');
    expect(down.headers.get('retry-after')).toBe('1');
    expect(await down.json()).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    expect((await createChannel()).status).toBe(201);

    expect(await waitFor(() => events().some((e) => e.msg === 'app is back' && e.app === 'templates'), 90_000)).toBe(true);
    const restartedPid = currentPids().get('templates') as number;
    expect(restartedPid).not.toBe(victim);
    expect(isProcessAlive(restartedPid)).toBe(true);
    // The gateway's channel notices the service back within its reconnect backoff (at most 2 s).
    let status = 0;
    const deadline = Date.now() + 5_000;
    while (status !== 200 && Date.now() < deadline) {
      status = (await searchTemplates()).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 200));
    }
    expect(status).toBe(200);

    const after = currentPids();
    for (const [app, pid] of before) if (app !== 'templates') expect([app, after.get(app)]).toEqual([app, pid]);
  }, 150_000);

  it('stops every process it started on SIGINT, restarting none', async () => {
    const pids = events()
      .filter((e) => e.msg === 'app started')
      .map((e) => e.pid);
    const startsBefore = pids.length;
    launcher.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(output).toMatch(/launcher +\| stopped/);
    expect(pids.filter(isProcessAlive)).toEqual([]);
    expect(events().filter((e) => e.msg === 'app started')).toHaveLength(startsBefore);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  }, 60_000);
});
