import { sendUnaryData, Server, ServerCredentials, ServerUnaryCall, ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import { AppError, toAppError } from '@platform/errors';
import type { Logger } from '@platform/logging';
import { appErrorToServiceError } from './problem-metadata';

export interface GrpcServerOptions {
  logger: Logger;
  /** Name registered with grpc.health.v1 besides the overall "" status. */
  serviceNames: string[];
}

export interface GrpcServerHandle {
  server: Server;
  /** Binds and starts; returns the port actually bound (pass 0 for any). */
  listen(host: string, port: number): Promise<number>;
  setServing(serving: boolean): void;
  /** Stops accepting calls and waits for in-flight ones, forcing after timeoutMs. */
  drain(timeoutMs: number): Promise<void>;
}

export function createGrpcServer({ logger, serviceNames }: GrpcServerOptions): GrpcServerHandle {
  const server = new Server({
    'grpc.max_receive_message_length': 8 * 1024 * 1024,
    // channelz keeps per-call statistics for an admin service we do not expose; it costs on every call.
    'grpc.enable_channelz': 0,
    // Clients reconnect, and so re-resolve DNS, at least every few minutes: that is how they find
    // replicas added after they connected. The grace lets calls in flight finish.
    'grpc.max_connection_age_ms': 5 * 60_000,
    'grpc.max_connection_age_grace_ms': 30_000,
  });
  const statusMap = Object.fromEntries(['', ...serviceNames].map((name) => [name, 'NOT_SERVING' as const]));
  const health = new HealthImplementation(statusMap);
  health.addToServer(server);

  const setServing = (serving: boolean) => {
    for (const name of Object.keys(statusMap)) health.setStatus(name, serving ? 'SERVING' : 'NOT_SERVING');
  };

  return {
    server,
    setServing,
    listen: (host, port) =>
      new Promise((resolve, reject) => {
        server.bindAsync(`${host}:${port}`, ServerCredentials.createInsecure(), (error, boundPort) => {
          if (error) return reject(error);
          logger.info({ port: boundPort }, 'gRPC server listening');
          resolve(boundPort);
        });
      }),
    drain: (timeoutMs) =>
      new Promise((resolve) => {
        const timer = setTimeout(() => {
          logger.warn('gRPC drain timed out; forcing shutdown');
          server.forceShutdown();
          resolve();
        }, timeoutMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}

type UnaryFn<Req, Res> = (request: Req, call: ServerUnaryCall<Req, Res>) => Promise<Res>;

/**
 * Adapts an async handler to grpc-js: AppErrors cross as problems, a dependency that is down
 * (the database restarting) as 503 SERVICE_UNAVAILABLE, anything else is logged and becomes an
 * opaque internal error so no stack or secret leaves the process.
 */
export function unary<Req, Res>(logger: Logger, method: string, fn: UnaryFn<Req, Res>) {
  return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => {
    fn(call.request, call).then(
      (response) => {
        // At debug level only: which replica served which call (tracing load spread across replicas).
        logger.debug({ method }, 'gRPC call served');
        callback(null, response);
      },
      (error: unknown) => {
        const appError = toAppError(error);
        if (!(error instanceof AppError) || appError.status >= 500) logger.error({ err: error, method }, 'gRPC handler failed');
        callback(appErrorToServiceError(appError), null);
      },
    );
  };
}

export function addService<I extends UntypedServiceImplementation>(handle: GrpcServerHandle, definition: ServiceDefinition<I>, implementation: I): void {
  handle.server.addService(definition, implementation);
}
