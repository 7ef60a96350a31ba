import type { Client, ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js';
import type { NatsConnection } from 'nats';
import { addService, connectPeer, createGrpcServer, type PeerClient, type ServiceEndpoint } from '@platform/grpc';
import type { Logger } from '@platform/logging';
import { jobAdmissionMigration, openOwnSchema, type Migration, type ServiceDatabase } from '@platform/mysql';
import { closeNats, connectNats, ensureStream, naming, OUTBOX_MIGRATIONS, pingNats, startOutboxRelay, type Naming, type StreamSpec } from '@platform/nats';
import { resolveKey } from '@platform/secrets';
import type { z } from '@platform/config';
import { AUDIT_STREAM } from '@contracts/domain';
import { endpointServing } from '@contracts/proto';
import { createCallGuard, type CallGuard } from './call-guard';
import { createEventOutbox, type EventOutbox } from './event-outbox';
import { createViewChangeAnnouncer, type ViewChangeAnnouncer } from './view-changes';
import type { GrpcServiceConfig } from './service.config';

/** What a service has once its database is open: enough to seed reference data. */
export interface SeedDeps<C extends GrpcServiceConfig> {
  config: C;
  logger: Logger;
  db: ServiceDatabase;
}

/** Everything the platform opened for a service, handed to the code that builds its handlers. */
export interface GrpcServiceDeps<C extends GrpcServiceConfig> extends SeedDeps<C> {
  /** Verifies the principal, permission and scope of a call (INTERNAL_AUTH_KEY already resolved). */
  guard: CallGuard;
  /**
   * INTERNAL_AUTH_KEY: signs the principal of work the service does on no caller's behalf (a job it
   * runs itself calling a peer: `principalMetadata(workerPrincipal(...), principalKey)`).
   */
  principalKey: Buffer;
  /** Records domain events in a transaction; the outbox relay publishes them. */
  events: EventOutbox;
  /** Drops the gateways' cached pages of a view for a tenant; await it after a commit that changes the view. */
  announceViewChange: ViewChangeAnnouncer;
  nats: NatsConnection;
  /** NATS_PREFIX applied to stream names and subjects. */
  names: Naming;
  /**
   * Connects to a peer service at the address the service's config holds (declare it with
   * peerAddressFields); the connection closes with the service.
   */
  connectPeer<P extends Client>(endpoint: ServiceEndpoint<P>): PeerClient<P>;
  /**
   * Runs work beside the gRPC handlers (e.g. a JetStream consumer feeding a view). It is started once
   * the handlers are built, before the service reports ready (a failure to start fails the start-up),
   * and stopped when the service drains, after the last call and before the outbox's final relay.
   */
  runInBackground(name: string, start: () => Promise<BackgroundTask>): void;
}

/** Something a service runs beside its handlers; stop() waits for the work in hand to settle. */
export interface BackgroundTask {
  stop(): Promise<void>;
}

/**
 * What makes a gRPC service itself; everything else (config loading, logging, lifecycle, schema,
 * outbox, NATS, health, shutdown order) is the same for every service and lives here.
 */
export interface GrpcServiceSpec<C extends GrpcServiceConfig, I extends UntypedServiceImplementation> {
  /** Process name: logger `service`, NATS connection name and the `<name> ready` log line. */
  name: string;
  configSchema: z.ZodType<C>;
  /** The schema is `<MYSQL_SCHEMA_PREFIX><base>`; the outbox and job-admission (`admitJob`) migrations are added in front. */
  database: { base: string; migrations: readonly Migration[] };
  /** JetStream streams the service publishes to, declared without NATS_PREFIX. */
  streams?: readonly StreamSpec[];
  /** Runs after migrations on every start, before any call is taken; must be idempotent. */
  seed?(deps: SeedDeps<C>): Promise<void>;
  /** The generated service definition (e.g. `channelsPlansV1.ChannelsPlansServiceService`). */
  definition: ServiceDefinition<I>;
  /** Builds the handlers from the opened dependencies. */
  implementation(deps: GrpcServiceDeps<C>): I;
}

export interface RunningGrpcService {
  grpcPort: number;
  /** True while the database and NATS both answer. */
  ready(): Promise<boolean>;
  /** grpc.health.v1 status of the process and of the service. */
  setServing(serving: boolean): void;
  /** Stops taking calls, waits for those in flight, then relays what they left in the outbox. */
  drain(): Promise<void>;
  /** Closes NATS, then the database; call after drain. Safe to call more than once. */
  close(): Promise<void>;
}

/** A service's migrations as they run: the outbox table first, then the service's own. */
export const serviceMigrations = (spec: { database: { migrations: readonly Migration[] } }): Migration[] => [
  ...OUTBOX_MIGRATIONS,
  jobAdmissionMigration,
  ...spec.database.migrations,
];

/** `channelsplans.v1.ChannelsPlansService`, read from a method path `/pkg.Service/Method`. */
export function grpcServiceName(definition: ServiceDefinition): string {
  const [first] = Object.values(definition);
  const name = first?.path.split('/')[1];
  if (!name) throw new Error('The service definition has no methods');
  return name;
}

/** The port SERVICE_ENDPOINTS declares for the service of this definition. */
function declaredPort(definition: ServiceDefinition): number {
  const endpoint = endpointServing(definition);
  if (!endpoint) throw new Error(`${grpcServiceName(definition)} has no SERVICE_ENDPOINTS entry (@contracts/proto); set GRPC_PORT`);
  return endpoint.port;
}

/**
 * Starts a service's parts in dependency order (schema, seed, NATS and streams, outbox relay, gRPC
 * server) and returns it serving. A failure part-way closes what was already opened, so a test or
 * a retrying caller leaks no pool or connection. The process-level wiring is runGrpcService's.
 */
export async function startGrpcService<C extends GrpcServiceConfig, I extends UntypedServiceImplementation>(
  config: C,
  logger: Logger,
  spec: GrpcServiceSpec<C, I>,
): Promise<RunningGrpcService> {
  const principalKey = resolveKey({
    configured: config.INTERNAL_AUTH_KEY,
    nodeEnv: config.NODE_ENV,
    variable: 'INTERNAL_AUTH_KEY',
    warn: (message) => logger.warn(message),
  });
  const listenPort = config.GRPC_PORT ?? declaredPort(spec.definition);
  const opened: (() => Promise<void>)[] = [];
  const closeOpened = async () => {
    for (const close of opened.splice(0).reverse()) await close();
  };

  try {
    const db = await openOwnSchema({ env: config, base: spec.database.base, migrations: serviceMigrations(spec), logger });
    opened.push(() => db.close());
    await spec.seed?.({ config, logger, db });

    const names = naming(config.NATS_PREFIX);
    const nats = await connectNats({ url: config.NATS_URL, name: spec.name, logger });
    opened.push(() => closeNats(nats));
    // Every service records its changes in the audit trail (recordChange), so the stream that captures
    // them is ensured by each, on file like every stream: none can publish an event no stream keeps.
    const jsm = await nats.jetstreamManager();
    for (const stream of [...(spec.streams ?? []), AUDIT_STREAM]) await ensureStream(jsm, names.streamSpec(stream));
    const relay = startOutboxRelay({ knex: db.knex, js: nats.jetstream(), logger });
    opened.push(() => relay.stop());

    const grpc = createGrpcServer({ logger, serviceNames: [grpcServiceName(spec.definition)] });
    const peerAddresses = config as unknown as Record<string, string | undefined>;
    const backgroundStarts: { name: string; start: () => Promise<BackgroundTask> }[] = [];
    const deps: GrpcServiceDeps<C> = {
      config,
      logger,
      db,
      guard: createCallGuard(principalKey),
      principalKey,
      events: createEventOutbox(names, { wakeRelay: () => relay.wake() }),
      announceViewChange: createViewChangeAnnouncer({ nats, names, logger }),
      nats,
      names,
      connectPeer: (endpoint) => {
        const peer = connectPeer(endpoint, peerAddresses[endpoint.addressVariable] ?? endpoint.defaultAddress);
        opened.push(async () => peer.close());
        return peer;
      },
      runInBackground: (name, start) => {
        backgroundStarts.push({ name, start });
      },
    };
    addService(grpc, spec.definition, spec.implementation(deps));
    const background: { name: string; task: BackgroundTask }[] = [];
    for (const { name, start } of backgroundStarts) {
      const started = await start();
      // Stopped on drain and again by close (which also covers a start-up that fails later): once is enough.
      let stopping: Promise<void> | undefined;
      const task = { stop: () => (stopping ??= started.stop()) };
      background.push({ name, task });
      opened.push(() => task.stop());
      logger.info({ task: name }, 'background task started');
    }
    const grpcPort = await grpc.listen(config.GRPC_HOST, listenPort);
    grpc.setServing(true);

    // Half the shutdown budget for calls in flight leaves the rest for the outbox and the pools.
    const drainTimeoutMs = Math.floor(config.SHUTDOWN_TIMEOUT_MS / 2);
    return {
      grpcPort,
      setServing: grpc.setServing,
      ready: async () => {
        try {
          await Promise.all([db.ping(), pingNats(nats)]);
          return true;
        } catch {
          return false;
        }
      },
      drain: async () => {
        await grpc.drain(drainTimeoutMs);
        for (const { task } of background) await task.stop();
        await relay.stop();
        // Events committed by the last calls go out now rather than at the next start.
        await relay.flush();
      },
      close: closeOpened,
    };
  } catch (error) {
    await closeOpened();
    throw error;
  }
}
