/**
 * The CPU the observability hooks add to one request, measured in-process on the hooks themselves:
 * what the gateway runs per request (its request scope, one gRPC client call's metadata, span and
 * metrics) and what a service runs per call (request id and trace context from metadata, server span,
 * metrics, one traced statement), first with tracing off (the default), then with tracing on and
 * spans batched to an OTLP/HTTP sink in another process (so its CPU is not counted here). The
 * end-to-end benchmarks cannot resolve a few microseconds on a shared machine; this can.
 *
 *   npx tsx bench/observability-overhead.ts      (OBS_ITERATIONS, default 100000)
 */
import { spawn } from 'node:child_process';
import { Metadata } from '@grpc/grpc-js';
import { currentRequestId, REQUEST_ID_HEADER, withRequestId } from '@platform/logging';
import {
  extractTraceContext,
  injectTraceContext,
  inSpan,
  markStatus,
  observeGrpcClientCall,
  observeGrpcServerCall,
  SpanKind,
  startSpan,
  startTracing,
  withContext,
} from '@platform/telemetry';

const ITERATIONS = Number(process.env.OBS_ITERATIONS ?? 100_000);

/** One request's hooks, in the order they run; awaits as the real code awaits. */
async function oneRequest(i: number): Promise<void> {
  // Gateway: request scope and server span.
  const server = startSpan('GET', { kind: SpanKind.SERVER, parent: extractTraceContext(() => undefined), attributes: { 'http.request.method': 'GET' } });
  await withRequestId(`req-${i}`, () =>
    withContext(server?.context, async () => {
      // Gateway: one gRPC call's client span, metadata and metrics.
      const client = startSpan('channels-plans/getMediaChannel', { kind: SpanKind.CLIENT, attributes: { 'rpc.system': 'grpc' } });
      const metadata = new Metadata();
      metadata.set('x-principal', 'p');
      const outgoing = metadata.clone();
      const requestId = currentRequestId();
      if (requestId) outgoing.set(REQUEST_ID_HEADER, requestId);
      injectTraceContext((key, value) => outgoing.set(key, value), client?.context);
      // Service: the call as unary() takes it.
      const started = process.hrtime.bigint();
      const [given] = outgoing.get(REQUEST_ID_HEADER);
      const parent = extractTraceContext((key) => outgoing.get(key)[0] as string | undefined);
      await withRequestId(given as string, () =>
        inSpan('channelsplans.v1.ChannelsPlansService/GetMediaChannel', { kind: SpanKind.SERVER, parent }, async () => {
          await inSpan('mysql SELECT', { kind: SpanKind.CLIENT, attributes: { 'db.system': 'mysql', 'db.statement': 'SELECT 1' } }, async () => undefined);
          observeGrpcServerCall(
            { grpc_service: 'channelsplans.v1.ChannelsPlansService', grpc_method: 'GetMediaChannel', grpc_code: 'OK' },
            Number(process.hrtime.bigint() - started) / 1e9,
          );
        }),
      );
      observeGrpcClientCall(
        { grpc_service: 'channels-plans', grpc_method: 'getMediaChannel', grpc_code: 'OK' },
        Number(process.hrtime.bigint() - started) / 1e9,
      );
      client?.span.end();
    }),
  );
  if (server) {
    server.span.setAttribute('http.response.status_code', 200);
    markStatus(server.span, false);
    server.span.end();
  }
}

async function cpuPerRequestUs(label: string): Promise<number> {
  for (let i = 0; i < ITERATIONS / 10; i++) await oneRequest(i); // warm-up
  const before = process.cpuUsage();
  for (let i = 0; i < ITERATIONS; i++) await oneRequest(i);
  const used = process.cpuUsage(before);
  const us = (used.user + used.system) / ITERATIONS;
  console.log(`${label}: ${us.toFixed(2)} µs CPU per request (${ITERATIONS} requests)`);
  return us;
}

async function emptyRequest(): Promise<void> {
  await Promise.resolve();
}

async function main(): Promise<void> {
  // The loop itself, so the hooks' share can be told apart from it.
  for (let i = 0; i < ITERATIONS / 10; i++) await emptyRequest();
  const before = process.cpuUsage();
  for (let i = 0; i < ITERATIONS; i++) await emptyRequest();
  const loop = process.cpuUsage(before);
  const loopUs = (loop.user + loop.system) / ITERATIONS;
  console.log(`empty loop: ${loopUs.toFixed(2)} µs per iteration`);

  const off = await cpuPerRequestUs('metrics and request ids, tracing off');

  const sink = spawn(process.execPath, ['-e', SINK_SOURCE], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve) => sink.once('message', (message) => resolve(Number(message))));
  const tracing = startTracing({ serviceName: 'overhead', otlpEndpoint: `http://127.0.0.1:${port}` });
  const on = await cpuPerRequestUs('metrics, request ids and tracing on (4 spans per request, exported)');
  await tracing.shutdown();
  sink.kill();
  console.log(`\nadded per request: ${(off - loopUs).toFixed(2)} µs with tracing off, ${(on - loopUs).toFixed(2)} µs with tracing on`);
}

/** A collector stand-in in its own process: takes OTLP/HTTP exports and drops them. */
const SINK_SOURCE = `
const server = require('node:http').createServer((req, res) => { req.resume(); req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}')); });
server.listen(0, '127.0.0.1', () => process.send(server.address().port));
`;

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
