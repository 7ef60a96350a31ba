import { ChannelCredentials, Client, Metadata, ServiceError, status } from '@grpc/grpc-js';
import { currentRequestId, REQUEST_ID_HEADER } from '@platform/logging';
import { injectTraceContext, markStatus, observeGrpcClientCall, SpanKind, startSpan } from '@platform/telemetry';
import { HealthClient, HealthCheckResponse } from './health-client';
import { serviceErrorToAppError } from './problem-metadata';

export interface ClientConstructor<C extends Client> {
  new (address: string, credentials: ChannelCredentials, options?: object): C;
}

/**
 * round_robin over every address the name resolves to: behind a headless Service that is every
 * backend pod, so calls spread across replicas instead of pinning one (pick_first, the default).
 */
const SERVICE_CONFIG = JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] });

export function createGrpcClient<C extends Client>(Ctor: ClientConstructor<C>, address: string): C {
  return new Ctor(address, ChannelCredentials.createInsecure(), {
    'grpc.keepalive_time_ms': 30_000,
    'grpc.max_receive_message_length': 8 * 1024 * 1024,
    'grpc.service_config': SERVICE_CONFIG,
    // channelz keeps per-call statistics for an admin service we do not expose; it costs on every call.
    'grpc.enable_channelz': 0,
    // grpc-js's retry layer wraps and buffers every call (about a tenth of the gateway's CPU per
    // request). We use none of its configurable retries; the one retry that matters, of a call the
    // server never saw, callUnary does itself.
    'grpc.enable_retries': 0,
    // A call to a backend that is down fails at once with UNAVAILABLE (waitForReady is off), but the
    // channel only notices the backend is back at its next reconnection attempt. grpc-js spaces those
    // from 1 s up to 2 min, so a restarted service stayed unused for minutes; a refused connect is
    // cheap, so try again from 250 ms and never wait more than 2 s.
    'grpc.initial_reconnect_backoff_ms': 250,
    'grpc.max_reconnect_backoff_ms': 2_000,
  });
}

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: { deadline: Date },
  callback: (error: ServiceError | null, response: Res) => void,
) => unknown;

/**
 * True when the call never reached the server's handler, so sending it again cannot apply it twice:
 * the server refused the stream (a connection closing after GOAWAY, e.g. at max connection age) or
 * the stream could not even be opened.
 */
export function neverReachedServer(error: ServiceError): boolean {
  return (
    (error.code === status.UNAVAILABLE && error.details === 'Stream refused by server') ||
    (error.code === status.INTERNAL && error.details.startsWith('Failed to start HTTP/2 stream'))
  );
}

/**
 * Calls a unary method with a deadline, always: a slow dependency becomes a 504, never a hung request.
 * A call the server never saw is sent once more within the same deadline (what grpc-js's transparent
 * retry did). Failures come back as AppError so the edge renders them as problems. Every call is
 * counted by target, method and status code (grpc_client_*), carries the current request id and,
 * with tracing on, a client span whose context the server continues.
 */
export function callUnary<Req, Res>(
  client: Client,
  method: UnaryMethod<Req, Res>,
  request: Req,
  options: { metadata?: Metadata; deadlineMs: number; target: string; method?: string },
): Promise<Res> {
  const methodName = options.method ?? (method.name || 'unknown');
  const traced = startSpan(`${options.target}/${methodName}`, {
    kind: SpanKind.CLIENT,
    attributes: { 'rpc.system': 'grpc', 'rpc.service': options.target, 'rpc.method': methodName },
  });
  const metadata = outgoingMetadata(options.metadata, traced?.context);
  const deadline = new Date(Date.now() + options.deadlineMs);
  const started = process.hrtime.bigint();
  const settle = (code: status) => {
    observeGrpcClientCall({ grpc_service: options.target, grpc_method: methodName, grpc_code: status[code] }, Number(process.hrtime.bigint() - started) / 1e9);
    if (traced) {
      traced.span.setAttribute('rpc.grpc.status_code', code);
      markStatus(traced.span, code !== status.OK, status[code]);
      traced.span.end();
    }
  };
  return new Promise((resolve, reject) => {
    const attempt = (retriesLeft: number) =>
      method.call(client, request, metadata, { deadline }, (error, response) => {
        if (!error) {
          settle(status.OK);
          resolve(response);
        } else if (retriesLeft > 0 && neverReachedServer(error)) attempt(retriesLeft - 1);
        else {
          settle(error.code);
          reject(serviceErrorToAppError(error, options.target));
        }
      });
    attempt(1);
  });
}

/**
 * The caller's metadata plus what follows the work from hop to hop: the request id being served and
 * the trace context. A copy, so metadata shared by several calls of one request stays as it was.
 */
function outgoingMetadata(given: Metadata | undefined, traceContext: Parameters<typeof injectTraceContext>[1]): Metadata {
  const requestId = currentRequestId();
  if (!requestId && !traceContext) return given ?? new Metadata();
  const metadata = given ? given.clone() : new Metadata();
  if (requestId) metadata.set(REQUEST_ID_HEADER, requestId);
  injectTraceContext((key, value) => metadata.set(key, value), traceContext);
  return metadata;
}

/** grpc.health.v1 Check against a backend; used by readiness probes. */
export function checkHealth(address: string, service = '', deadlineMs = 1000): Promise<boolean> {
  const client = new HealthClient(address, ChannelCredentials.createInsecure());
  return new Promise((resolve) => {
    client.check({ service }, { deadline: new Date(Date.now() + deadlineMs) }, (error: ServiceError | null, response?: HealthCheckResponse) => {
      client.close();
      resolve(!error && response?.status === 'SERVING');
    });
  });
}
