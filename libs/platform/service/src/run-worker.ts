import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { commonFields, natsFields, port, z } from '@platform/config';
import { runJobConsumer, type JobHandler } from '@platform/jobs';
import type { Lifecycle } from '@platform/lifecycle';
import type { Logger } from '@platform/logging';
import { answerMetrics } from '@platform/telemetry';
import { closeNats, connectNats, ensureStream, naming, pingNats, type Naming, type RunningConsumer, type StreamSpec } from '@platform/nats';
import type { Client } from '@grpc/grpc-js';
import { connectPeer, type PeerClient, type ServiceEndpoint } from '@platform/grpc';
import type { NatsConnection } from 'nats';
import { openProcessShell, type ProcessOptions } from './process-shell';

/** The environment every worker reads; a worker's schema spreads these and adds its own. */
export const workerFields = {
  ...commonFields,
  ...natsFields,
  /** GET /healthz (alive) and /readyz (NATS answers) for probes, and /metrics; 0 picks a free port. */
  HEALTH_PORT: port(8090),
  HEALTH_HOST: z.string().default('127.0.0.1'),
  /** How long a job held by a worker that died waits before another worker takes it over. */
  JOB_ACK_WAIT_MS: z.coerce.number().int().min(1_000).max(600_000).default(60_000),
};

export type WorkerConfig = z.infer<z.ZodObject<typeof workerFields>>;

export interface WorkerDeps<C extends WorkerConfig> {
  config: C;
  logger: Logger;
  nats: NatsConnection;
  names: Naming;
  /**
   * A client to a gRPC service the worker asks (at `<NAME>_ADDR` from its config, `peerAddressFields`),
   * closed on shutdown. A worker has no caller: it calls with a principal it signs itself (workerPrincipal).
   */
  connectPeer<P extends Client>(endpoint: ServiceEndpoint<P>): PeerClient<P>;
}

/** What makes a worker itself; config, logging, NATS, health, consumers and shutdown order are runWorker's. */
export interface WorkerSpec<C extends WorkerConfig> {
  name: string;
  configSchema: z.ZodType<C>;
  /** Streams the worker reads or writes, declared without NATS_PREFIX (idempotent). */
  streams: readonly StreamSpec[];
  /** Opens what the handlers need (e.g. the object store) and returns one handler per job kind. */
  jobs(deps: WorkerDeps<C>): Promise<JobHandler[]>;
  /** Jobs one process runs at once, per kind. */
  concurrency?: number;
}

export type RunWorkerOptions = ProcessOptions;

export interface WorkerProcess {
  lifecycle: Lifecycle;
  healthPort: number;
}

/**
 * A worker's whole main(): config, logger, lifecycle with signal handlers, NATS and its streams, one
 * durable job consumer per handler (runJobConsumer: progress, exactly one terminal state, retries),
 * a health endpoint, and the shutdown order (not ready, stop taking jobs and let running ones
 * settle, close NATS). Logs `<name> ready`; a start-up failure logs and exits with 1.
 */
export async function runWorker<C extends WorkerConfig>(spec: WorkerSpec<C>, options: RunWorkerOptions = {}): Promise<WorkerProcess | undefined> {
  const shell = openProcessShell(spec.name, spec.configSchema, options);
  if (!shell) return undefined;
  const { config, logger, lifecycle } = shell;

  let nats: NatsConnection | undefined;
  let health: Server | undefined;
  const consumers: RunningConsumer[] = [];
  const peers: { close(): void }[] = [];
  const peerAddresses = config as unknown as Record<string, string | undefined>;
  try {
    const names = naming(config.NATS_PREFIX);
    nats = await connectNats({ url: config.NATS_URL, name: spec.name, logger });
    const jsm = await nats.jetstreamManager();
    for (const stream of spec.streams) await ensureStream(jsm, names.streamSpec(stream));
    const handlers = await spec.jobs({
      config,
      logger,
      nats,
      names,
      connectPeer: (endpoint) => {
        const peer = connectPeer(endpoint, peerAddresses[endpoint.addressVariable] ?? endpoint.defaultAddress);
        peers.push(peer);
        return peer;
      },
    });
    for (const handler of handlers) {
      consumers.push(
        await runJobConsumer({
          nats,
          names,
          logger,
          durable: `${spec.name}-${handler.kind}`,
          handler,
          concurrency: spec.concurrency,
          ackWaitMs: config.JOB_ACK_WAIT_MS,
        }),
      );
    }
    const connection = nats;
    health = await listenHealth(config.HEALTH_HOST, config.HEALTH_PORT, {
      live: () => true,
      ready: async () =>
        lifecycle.isReady() &&
        (await pingNats(connection).then(
          () => true,
          () => false,
        )),
    });
  } catch (error) {
    for (const consumer of consumers) await consumer.stop().catch(() => undefined);
    for (const peer of peers) peer.close();
    if (nats) await closeNats(nats).catch(() => undefined);
    health?.close();
    shell.failStart(error);
    return undefined;
  }
  const connection = nats;
  const healthServer = health;
  lifecycle.onDrain('jobs', async () => {
    await Promise.all(consumers.map((consumer) => consumer.stop()));
  });
  lifecycle.onClose('connections', async () => {
    healthServer.close();
    for (const peer of peers) peer.close();
    await closeNats(connection);
  });
  lifecycle.markReady();
  const healthPort = (healthServer.address() as AddressInfo).port;
  logger.info({ healthPort }, `${spec.name} ready`);
  return { lifecycle, healthPort };
}

function listenHealth(host: string, portNumber: number, checks: { live(): boolean; ready(): Promise<boolean> }): Promise<Server> {
  const server = createServer((req, res) => {
    const answer = (ok: boolean) =>
      res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ status: ok ? 'ok' : 'unavailable' }));
    if (req.url === '/healthz') return answer(checks.live());
    if (req.url === '/readyz') return void checks.ready().then(answer);
    if (answerMetrics(req, res)) return;
    res.writeHead(404).end();
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(portNumber, host, () => resolve(server));
  });
}
