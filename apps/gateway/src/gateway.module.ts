import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import type { Client } from '@grpc/grpc-js';
import { checkHealth, createGrpcClient } from '@platform/grpc';
import { createAccessLogger, Logger } from '@platform/logging';
import { openOwnSchema } from '@platform/mysql';
import { answerMetrics } from '@platform/telemetry';
import { resolveKey } from '@platform/secrets';
import { BACKENDS, BackendKey } from './backends/backend.registry';
import { connectBackends } from './backends/typed-client';
import { GatewayConfig, resolveAdminToken } from './gateway.config';
import { createGatewayApp } from './http/app';
import { liveness, readiness } from './http/health';
import { createHttpMetrics } from './http/http-metrics';
import { createIdempotencyStore } from './idempotency/idempotency.store';
import { createIdempotentRequests } from './idempotency/idempotency.migrations';
import { idempotentWrites } from './idempotency/idempotent-writes';
import { createIdentityTables } from './identity/identity.migrations';
import { createRateLimit, currentRateLimitWindow } from './rate-limits/rate-limit';
import { createRateLimitCounter } from './rate-limits/rate-limit-counter';
import { createRateLimitWindows } from './rate-limits/rate-limit.migrations';
import { startSharedStateSweep } from './shared-state-sweep';
import { startIdentity } from './identity/identity.module';
import { startCaches } from './cache/caches.module';
import { buildOpenApi } from './openapi/openapi.builder';
import { bindRoutes } from './routes/route-binder';
import { knownPermissions, ROUTE_TABLE } from './routes/route-table';
import { objectStoreFromConfig } from '@platform/s3';
import { filesRouter } from './uploads/files.router';
import { forwardServe } from './http/serve-forward';
import { createUploadStaging } from './uploads/upload-staging';

/** The gateway's own schema (identity) and its migrations. */
export const GATEWAY_SCHEMA = { base: 'gateway_identity', migrations: [createIdentityTables, createIdempotentRequests, createRateLimitWindows] };

export interface GatewayModule {
  port: number;
  setReady(ready: boolean): void;
  drain(): Promise<void>;
  close(): Promise<void>;
}

export async function startGateway(config: GatewayConfig, logger: Logger): Promise<GatewayModule> {
  const warn = (message: string) => logger.warn(message);
  const adminToken = resolveAdminToken(config, warn);
  const principalKey = resolveKey({ configured: config.INTERNAL_AUTH_KEY, nodeEnv: config.NODE_ENV, variable: 'INTERNAL_AUTH_KEY', warn });
  const db = await openOwnSchema({ env: config, ...GATEWAY_SCHEMA, logger });

  const permissions = knownPermissions();
  const caches = await startCaches(config, logger);
  const identity = startIdentity({
    knex: db.knex,
    permissions,
    adminToken,
    principals: caches.principals,
    invalidations: caches.invalidations,
    principalSubject: caches.principalSubject,
    lookupDeadlineMs: config.GRPC_DEADLINE_MS,
  });
  const addressOf = (key: BackendKey) => (config as Record<string, unknown>)[BACKENDS[key].addressVariable] as string;
  const backends = connectBackends(addressOf, (key, address) => createGrpcClient<Client>(BACKENDS[key].Client, address));
  const backendChecks = Object.fromEntries((Object.keys(BACKENDS) as BackendKey[]).map((key) => [BACKENDS[key].label, () => checkHealth(addressOf(key))]));

  const store = objectStoreFromConfig(config);
  const rateLimitCounter = createRateLimitCounter(db);
  const rateLimit = createRateLimit({
    counter: rateLimitCounter,
    perKeyPerMinute: config.RATE_LIMIT_PER_MINUTE,
    perAccountPerMinute: config.RATE_LIMIT_ACCOUNT_PER_MINUTE,
    counterWaitMs: config.RATE_LIMIT_COUNTER_WAIT_MS,
    logger,
  });
  const idempotencyStore = createIdempotencyStore(db, { ttlMs: config.IDEMPOTENCY_TTL_MS, leaseMs: config.IDEMPOTENCY_LEASE_MS });
  const sweep = startSharedStateSweep({ idempotency: idempotencyStore, rateLimits: rateLimitCounter, currentWindow: currentRateLimitWindow, logger });
  let accepting = true;
  const metrics = createHttpMetrics();
  const accessLogger = createAccessLogger({ service: 'gateway', level: config.LOG_LEVEL });
  const app = createGatewayApp({
    logger,
    accessLogger,
    metrics,
    trustProxy: config.TRUST_PROXY === 'true',
    openApi: buildOpenApi(ROUTE_TABLE, [...permissions].sort()),
    health: {
      live: liveness,
      ready: readiness(() => accepting, {
        mysql: () => db.ping().then(() => true),
        nats: caches.natsReady,
        ...backendChecks,
      }),
    },
    knownRoutes: ROUTE_TABLE,
    serveForward: config.AD_SERVER_URL ? forwardServe(config.AD_SERVER_URL, { logger }) : undefined,
    routers: [
      bindRoutes(ROUTE_TABLE, {
        authenticate: identity.authenticate,
        authenticateAdmin: identity.authenticateAdmin,
        rateLimit,
        idempotency: idempotentWrites(idempotencyStore, logger, config.GRPC_DEADLINE_MS),
        bodyLimitBytes: config.BODY_LIMIT_BYTES,
        local: { identity: identity.identity, uploads: createUploadStaging(store, config.UPLOAD_MAX_BYTES) },
        backends,
        principalKey,
        deadlineMs: config.GRPC_DEADLINE_MS,
        publicBaseUrl: config.PUBLIC_BASE_URL,
        responseCache: { cache: caches.responses, gate: caches.invalidations, count: metrics.countCacheLookup },
      }),
      filesRouter(store),
    ],
  });

  const listen = (handler: Parameters<typeof createServer>[1], port: number): Promise<Server> =>
    new Promise((resolve, reject) => {
      const s = createServer(handler).listen(port, config.HOST, () => resolve(s));
      s.once('error', reject);
    });
  const server = await listen(app, config.PORT);
  server.keepAliveTimeout = 65_000;
  const port = (server.address() as AddressInfo).port;
  const metricsServer =
    config.METRICS_PORT === undefined
      ? undefined
      : await listen((req, res) => {
          if (!answerMetrics(req, res, [metrics.registry])) res.writeHead(404).end();
        }, config.METRICS_PORT);

  return {
    port,
    setReady: (ready) => {
      accepting = ready;
    },
    drain: () =>
      new Promise<void>((resolve) => {
        metricsServer?.close();
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
    close: async () => {
      await sweep.stop();
      backends.close();
      accessLogger.flush();
      await caches.close();
      await db.close();
    },
  };
}
