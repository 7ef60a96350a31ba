/**
 * `npm start`: runs the whole system on this machine, each app its own process talking gRPC and
 * NATS over loopback (the deployed topology), plus an embedded S3-compatible server unless
 * S3_ENDPOINT points at a real one. An app that dies after it was up is restarted with a backoff
 * while the others keep running (app-supervisor.ts). Ctrl-C or SIGTERM stops everything in reverse
 * order and restarts nothing.
 *
 * `npm start -- --replicas storage-worker=3,templates=2,gateway=2` runs several processes of an app:
 * a service's replicas on its port + 100 * i, which its callers round-robin over (an `ipv4:` address
 * list); gateways on PORT + i; the ad server on AD_SERVER_PORT (8070) + i, the gateway forwarding `/serve/`
 * to the first (AD_SERVER_URL); workers sharing their durable consumers. The first replica of a schema
 * owner migrates, the others wait for a current schema (SCHEMA_MIGRATIONS=require-current).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { checkHealth } from '@platform/grpc';
import { APPS, grpcPortOf, listenPortsOf } from './apps.registry';
import { AppSupervisor, LauncherEvent } from './app-supervisor';
import { httpAnswers, startChild } from './child-process.runner';
import { parseReplicas, replicaName, schemaMigrationsFor, serviceReplicaAddresses } from './replicas';

const root = resolve(__dirname, '../..');
const log = (message: string) => process.stdout.write(`${'launcher'.padEnd(16)} | ${message}\n`);
/** Pid, exit and restart events as one JSON line each, for whoever reads or greps the log. */
const logEvent = (event: LauncherEvent) => log(JSON.stringify({ time: new Date().toISOString(), ...event }));

async function main(): Promise<void> {
  let replicas: Map<string, number>;
  try {
    replicas = parseReplicas(
      process.argv.slice(2),
      APPS.map((app) => app.name),
    );
  } catch (error) {
    log(error instanceof Error ? error.message : String(error));
    process.exit(2);
  }
  const countOf = (app: string) => replicas.get(app) ?? 1;
  const grpcPortBase = process.env.GRPC_PORT_BASE ? Number(process.env.GRPC_PORT_BASE) : undefined;
  const workerHealthPortBase = Number(process.env.WORKER_HEALTH_PORT_BASE ?? 9465);
  // A second system beside a running one (GRPC_PORT_BASE) takes free metrics ports unless told where;
  // each service logs its port in its `ready` line.
  const serviceMetricsPortBase = process.env.SERVICE_METRICS_PORT_BASE
    ? Number(process.env.SERVICE_METRICS_PORT_BASE)
    : grpcPortBase === undefined
      ? 9470
      : undefined;
  const env: NodeJS.ProcessEnv = { ...process.env };
  const supervisors: AppSupervisor[] = [];
  let stopping = false;

  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    log('stopping every process');
    // No app may be restarted while the others stop, then each stops in reverse start order.
    for (const supervisor of supervisors) supervisor.beginStop();
    for (const supervisor of [...supervisors].reverse()) await supervisor.stop();
    log('stopped');
    process.exit(code);
  };
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));

  const launch = (name: string, entry: string, childEnv: NodeJS.ProcessEnv, probe: () => Promise<boolean>) => {
    const index = supervisors.length;
    const supervisor = new AppSupervisor({
      name,
      spawn: () => startChild({ name, entry, env: childEnv, cwd: root, index }),
      probe,
      log: logEvent,
    });
    supervisors.push(supervisor);
    return supervisor.start();
  };

  try {
    if (!env.S3_ENDPOINT) {
      const port = Number(env.S3_EMBEDDED_PORT ?? 9000);
      await launch('s3', 'tools/s3-server/main.ts', { ...env, S3_EMBEDDED_PORT: String(port) }, httpAnswers(`http://127.0.0.1:${port}/`));
      env.S3_ENDPOINT = `http://127.0.0.1:${port}`;
    }
    const present = APPS.filter((app) => existsSync(resolve(root, app.entry)));
    const absent = [...replicas.keys()].filter((name) => !present.some((app) => app.name === name));
    if (absent.length > 0) throw new Error(`--replicas names ${absent.join(', ')}, not built here (no src/main.ts)`);
    for (const app of present) {
      const port = grpcPortOf(app, grpcPortBase);
      if (port !== undefined && 'addressVariable' in app.readiness)
        env[app.readiness.addressVariable] = serviceReplicaAddresses(port, countOf(app.name)).address;
      // The gateway forwards the app's paths to it (AD_SERVER_URL), as the ingress does in a cluster.
      const listening = listenPortsOf(app, env, countOf(app.name));
      if (listening && app.listens) env[app.listens.urlVariable] = listening.url;
    }
    let workerIndex = 0;
    const gatewayPorts: string[] = [];
    let serviceIndex = 0;
    for (const app of present) {
      const count = countOf(app.name);
      for (let index = 0; index < count; index += 1) {
        const appEnv: NodeJS.ProcessEnv = { ...env, SCHEMA_MIGRATIONS: env.SCHEMA_MIGRATIONS ?? schemaMigrationsFor(index) };
        const port = grpcPortOf(app, grpcPortBase);
        let probe: () => Promise<boolean>;
        if (app.name === 'gateway') {
          appEnv.PORT = String(Number(env.PORT ?? 8080) + index);
          appEnv.METRICS_PORT = String(Number(env.METRICS_PORT ?? 9464) + index);
          gatewayPorts.push(appEnv.PORT);
        }
        const listening = listenPortsOf(app, env, count);
        if (listening) {
          // Its own port variable, never the gateway's PORT; loopback unless HOST says otherwise.
          appEnv.PORT = String(listening.ports[index]);
          appEnv.HOST = env.HOST ?? '127.0.0.1';
        }
        if (port !== undefined) {
          const replicaPort = serviceReplicaAddresses(port, count).ports[index];
          appEnv.GRPC_PORT = String(replicaPort);
          appEnv.METRICS_PORT = String(serviceMetricsPortBase === undefined ? 0 : serviceMetricsPortBase + serviceIndex++);
          probe = () => checkHealth(`127.0.0.1:${replicaPort}`);
        } else {
          const readiness = app.readiness as { httpPath: string; portVariable: 'PORT' | 'HEALTH_PORT' };
          if (readiness.portVariable === 'HEALTH_PORT') appEnv.HEALTH_PORT = String(workerHealthPortBase + workerIndex++);
          const httpPort = appEnv[readiness.portVariable] ?? '8080';
          probe = httpAnswers(`http://127.0.0.1:${httpPort}${readiness.httpPath}`);
        }
        if (stopping) return;
        await launch(replicaName(app.name, index, count), app.entry, appEnv, probe);
      }
    }
    const processes = present.reduce((sum, app) => sum + countOf(app.name), 0);
    log(`all ${present.length} apps are up (${processes} processes)`);
    for (const port of gatewayPorts)
      log(
        `gateway: http://localhost:${port}  (API reference: http://localhost:${port}/docs, admin token: ${env.ADMIN_TOKEN ? '$ADMIN_TOKEN' : 'dev-admin-token'})`,
      );
  } catch (error) {
    log(`start-up failed: ${error instanceof Error ? error.message : String(error)}`);
    await stopAll(1);
  }
}

void main();
