import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { deletePrefixedStreams, dropPrefixedSchemas, freePort, freePortBlock, uniquePrefix } from '@platform/testing';
import { APPS } from './apps.registry';

describe('npm start (tools/launcher)', () => {
  const prefix = uniquePrefix('launch');
  const dataDir = mkdtempSync(join(tmpdir(), 'launcher-s3-'));
  let launcher: ChildProcess | undefined;

  afterAll(async () => {
    // A failed assertion must not leave the system running: SIGINT first, then SIGKILL.
    if (launcher && launcher.exitCode === null) {
      launcher.kill('SIGINT');
      await new Promise((r) => setTimeout(r, 5_000));
      if (launcher.exitCode === null) launcher.kill('SIGKILL');
    }
    rmSync(dataDir, { recursive: true, force: true });
    await Promise.all([dropPrefixedSchemas(prefix), deletePrefixedStreams(prefix)]);
  });

  it('brings up every app and the embedded S3 server, logs the gateway URL, and stops all on SIGINT', async () => {
    const [port, s3Port, metricsPort] = [await freePort(), await freePort(), await freePort()];
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
      MYSQL_SCHEMA_PREFIX: prefix,
      NATS_PREFIX: prefix,
      LOG_LEVEL: 'warn',
    };
    delete env.S3_ENDPOINT;
    launcher = spawn(process.execPath, ['--import', 'tsx', 'tools/launcher/launch.ts'], {
      cwd: resolve(__dirname, '../..'),
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    launcher.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    launcher.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const child = launcher;
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));

    const deadline = Date.now() + 90_000;
    while (!/gateway: http:\/\/localhost:\d+/.test(output) && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(output).toContain(`gateway: http://localhost:${port}`);
    expect(output).toMatch(/all \d+ apps are up/);

    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(ready.status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).status).toBe(200);
    const s3 = await fetch(`http://127.0.0.1:${s3Port}/`);
    expect(s3.status).toBeLessThan(500);

    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(output).toMatch(/launcher +\| stopped/);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });
});
