import { Metadata, sendUnaryData, Server, ServerCredentials, ServerUnaryCall, ServiceDefinition, status, UntypedServiceImplementation } from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import { failureLogLevel, toAppError } from '@platform/errors';
import { acceptedRequestId, REQUEST_ID_HEADER, withRequestId, type Logger } from '@platform/logging';
import { extractTraceContext, inSpan, markFailed, observeGrpcServerCall, SpanKind } from '@platform/telemetry';
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

/** The first value of a metadata key, when it is text. */
function metadataText(metadata: Metadata, key: string): string | undefined {
  const [value] = metadata.get(key);
  return typeof value === 'string' ? value : undefined;
}

/**
 * Adapts an async handler to grpc-js: AppErrors cross as problems, a dependency that is down
 * (the database restarting) as 503 SERVICE_UNAVAILABLE, anything else is logged and becomes an
 * opaque internal error so no stack or secret leaves the process. The handler runs
 * with the caller's request id current (so every log line it writes names it, and every call it
 * makes passes it on) and, with tracing on, inside a server span continuing the caller's trace.
 * Each answer is counted by method and status code (grpc_server_*).
 */
export function unary<Req, Res>(logger: Logger, method: string, fn: UnaryFn<Req, Res>, service = 'unknown') {
  const attributes = { 'rpc.system': 'grpc', 'rpc.service': service, 'rpc.method': method };
  return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => {
    const started = process.hrtime.bigint();
    const parent = extractTraceContext((key) => metadataText(call.metadata, key));
    const settle = (code: status) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      observeGrpcServerCall({ grpc_service: service, grpc_method: method, grpc_code: status[code] }, seconds);
      // One line per call at debug level; its requestId (added by the logger) ties it to the gateway's access line.
      logger.debug({ method, code: status[code], durationMs: Math.round(seconds * 1e4) / 10 }, 'gRPC call served');
    };
    withRequestId(acceptedRequestId(metadataText(call.metadata, REQUEST_ID_HEADER)), () =>
      inSpan(`${service}/${method}`, { kind: SpanKind.SERVER, parent, attributes }, async (span) => {
        let response: Res;
        try {
          response = await fn(call.request, call);
        } catch (error) {
          const appError = toAppError(error);
          const level = failureLogLevel(appError);
          if (level === 'error') {
            logger.error({ err: error, method }, 'gRPC handler failed');
            if (span) markFailed(span, error);
          } else if (level === 'warn') logger.warn({ method, code: appError.code, detail: appError.detail }, 'gRPC call answered an outside host failing');
          const serviceError = appErrorToServiceError(appError);
          const code = serviceError.code ?? status.UNKNOWN;
          span?.setAttribute('rpc.grpc.status_code', code);
          settle(code);
          callback(serviceError, null);
          return;
        }
        settle(status.OK);
        callback(null, response);
      }),
    );
  };
}

export function addService<I extends UntypedServiceImplementation>(handle: GrpcServerHandle, definition: ServiceDefinition<I>, implementation: I): void {
  handle.server.addService(definition, implementation);
}
