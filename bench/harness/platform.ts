import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { deletePrefixedStreams, dropPrefixedSchemas, freePort, startProcess, uniquePrefix, type RunningProcess } from '@platform/testing';

import type { Defer } from './teardown';

export interface PlatformOptions {
  /** Also start the templates service and point the gateway at it (TEMPLATES_ADDR). */
  templates?: boolean;
  /**
   * More gRPC services to start beside channels-plans, by app name (e.g. `tagging-trackers`); the
   * gateway and every service get each one's `<NAME>_ADDR`.
   */
  services?: string[];
  /**
   * JetStream workers to start after the services, by app name (e.g. `storage-worker`), each with a
   * HEALTH_PORT of its own and the services' environment (their addresses included); ready on `<name> ready`.
   */
  workers?: string[];
  /** More environment for every process started (e.g. S3_ENDPOINT, S3_BUCKET, OUTBOUND_ALLOWLIST). */
  env?: Record<string, string>;
}

const addressVariable = (name: string) => `${name.toUpperCase().replace(/-/g, '_')}_ADDR`;

export interface RunningPlatform {
  gatewayUrl: string;
  prefix: string;
  /** Process ids by service name, for CPU accounting. */
  pids: Record<string, number>;
  /** Bytes the services have written to stdout/stderr so far; see LOG_LEVEL. */
  logBytes(): number;
}

/**
 * `info`, as deployed: the gateway's access log writes one line per request. The services write
 * their logs straight into files (as a container runtime would), so the load generator's CPU does
 * not include reading them; logBytes() reports how much they wrote around the measured run.
 */
const LOG_LEVEL = 'info';

/** BENCH_PROFILE_DIR=<dir> makes both services write a V8 CPU profile there when they stop. */
function profilingEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const dir = env.BENCH_PROFILE_DIR;
  if (!dir) return {};
  const preload = resolve(__dirname, 'cpu-profile.preload.cjs');
  return { BENCH_CPU_PROFILE_DIR: resolve(dir), NODE_OPTIONS: [env.NODE_OPTIONS, `--require ${preload}`].filter(Boolean).join(' ') };
}

/** BENCH_NODE_ARGS="--flag ..." runs both services with extra node flags, to compare runtime settings. */
function benchNodeArgs(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env.BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
}

function pidsOf(candidates: Record<string, number | undefined>): Record<string, number> {
  return Object.fromEntries(Object.entries(candidates).filter((entry): entry is [string, number] => entry[1] !== undefined));
}

/**
 * Starts the real channels-plans and gateway processes on free ports under a schema prefix of
 * their own, with dev defaults (admin token `dev-admin-token`). Stopping them and dropping the
 * prefixed schemas and streams is deferred, so it happens even if the second process never comes up.
 */
export async function startPlatform(tag: string, defer: Defer, options: PlatformOptions = {}): Promise<RunningPlatform> {
  const prefix = uniquePrefix(tag);
  defer('drop prefixed schemas', () => dropPrefixedSchemas(prefix));
  defer('delete prefixed NATS streams', () => deletePrefixedStreams(prefix));
  const [grpcPort, httpPort] = [await freePort(), await freePort()];
  const logDir = mkdtempSync(join(tmpdir(), 'bench-logs-'));
  defer('remove service logs', async () => rmSync(logDir, { recursive: true, force: true }));
  const logFile = (name: string) => join(logDir, `${name}.log`);
  const sizeOf = (file: string) => statSync(file).size;
  const common = { MYSQL_SCHEMA_PREFIX: prefix, NATS_PREFIX: prefix, LOG_LEVEL, ...options.env, ...profilingEnv() };

  // Started before the gateway, which otherwise would come up with no backend to call. Their ports are
  // chosen first, so each service knows where its peers are.
  const extraNames = [...new Set([...(options.templates ? ['templates'] : []), ...(options.services ?? [])])];
  const extraPorts = new Map<string, number>();
  for (const name of extraNames) extraPorts.set(name, await freePort());
  const backendAddresses: Record<string, string> = { CHANNELS_PLANS_ADDR: `127.0.0.1:${grpcPort}` };
  for (const [name, port] of extraPorts) backendAddresses[addressVariable(name)] = `127.0.0.1:${port}`;
  // channels-plans calls templates (a campaign's template), so it too is given every address.
  const channelsPlans = await startProcess({
    name: 'channels-plans',
    entry: 'apps/channels-plans/src/main.ts',
    env: { ...common, ...backendAddresses, GRPC_PORT: String(grpcPort) },
    ready: /channels-plans ready/,
    nodeArgs: benchNodeArgs(),
    logFile: logFile('channels-plans'),
  });
  defer('stop channels-plans', () => channelsPlans.stop());
  const extras: RunningProcess[] = [];
  for (const [name, port] of extraPorts) {
    const started = await startProcess({
      name,
      entry: `apps/${name}/src/main.ts`,
      env: { ...common, ...backendAddresses, GRPC_PORT: String(port) },
      ready: new RegExp(`${name} ready`),
      nodeArgs: benchNodeArgs(),
      logFile: logFile(name),
    });
    defer(`stop ${name}`, () => started.stop());
    extras.push(started);
  }

  // Workers take their jobs from JetStream; the services above are up, so the streams they publish to exist.
  const workerNames = [...new Set(options.workers ?? [])];
  for (const name of workerNames) {
    const started = await startProcess({
      name,
      entry: `apps/${name}/src/main.ts`,
      env: { ...common, ...backendAddresses, HEALTH_PORT: String(await freePort()) },
      ready: new RegExp(`${name} ready`),
      nodeArgs: benchNodeArgs(),
      logFile: logFile(name),
    });
    defer(`stop ${name}`, () => started.stop());
    extras.push(started);
  }

  const gateway = await startProcess({
    name: 'gateway',
    entry: 'apps/gateway/src/main.ts',
    // The limiters stay in the measured path (counted in MySQL, in leases), with budgets one benchmark key and account cannot exhaust.
    env: { ...common, PORT: String(httpPort), ...backendAddresses, RATE_LIMIT_PER_MINUTE: '100000000', RATE_LIMIT_ACCOUNT_PER_MINUTE: '100000000' },
    ready: /gateway listening/,
    nodeArgs: benchNodeArgs(),
    logFile: logFile('gateway'),
  });
  defer('stop gateway', () => gateway.stop());

  return {
    gatewayUrl: `http://127.0.0.1:${httpPort}`,
    prefix,
    pids: pidsOf({ gateway: gateway.child.pid, 'channels-plans': channelsPlans.child.pid, ...Object.fromEntries(extras.map((p) => [p.name, p.child.pid])) }),
    logBytes: () => ['channels-plans', 'gateway', ...extraNames, ...workerNames].reduce((total, name) => total + sizeOf(logFile(name)), 0),
  };
}

export interface RunningObjectStore {
  /** S3_ENDPOINT for the services, e.g. http://127.0.0.1:41234 */
  endpoint: string;
  /** `host:port` of the endpoint, for OUTBOUND_ALLOWLIST (a customer bucket on this server is a loopback address). */
  hostPort: string;
  pid: number;
  /** Where the server keeps buckets and objects as plain files. */
  directory: string;
}

/**
 * The embedded S3-compatible server (`tools/s3-server`, s3rver on local files, V4 signatures checked)
 * in a process of its own on a free port, so its CPU is accounted apart from the benchmark's and the
 * benchmark's own client does not share its event loop. Stopping it and removing its files is deferred.
 */
export async function startObjectStore(defer: Defer): Promise<RunningObjectStore> {
  const directory = mkdtempSync(join(tmpdir(), 'bench-s3-'));
  defer('remove object store files', async () => rmSync(directory, { recursive: true, force: true }));
  const port = await freePort();
  // Beside the data directory rather than in it, so the log is not taken for a bucket.
  const logPath = `${directory}.log`;
  defer('remove object store log', async () => rmSync(logPath, { force: true }));
  const server = await startProcess({
    name: 's3-server',
    entry: 'tools/s3-server/main.ts',
    env: { S3_EMBEDDED_PORT: String(port), S3_DATA_DIR: directory, LOG_LEVEL },
    ready: /embedded S3 server listening/,
    logFile: logPath,
  });
  defer('stop s3-server', () => server.stop());
  return { endpoint: `http://127.0.0.1:${port}`, hostPort: `127.0.0.1:${port}`, pid: server.child.pid as number, directory };
}
