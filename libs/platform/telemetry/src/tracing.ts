import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';

export { SpanKind, type Context, type Span };

export interface TracingOptions {
  /** `service.name` of every span this process records (the app's name). */
  serviceName: string;
  /**
   * OTEL_EXPORTER_OTLP_ENDPOINT: spans are batched to `<endpoint>/v1/traces` as OTLP over HTTP
   * (JSON). Unset, and without `exporter`, nothing is recorded and every span below is a no-op.
   */
  otlpEndpoint?: string;
  /** Instead of OTLP, hand each span to this exporter as it ends (tests: an InMemorySpanExporter). */
  exporter?: SpanExporter;
}

export interface Tracing {
  /** Sends what is still batched and stops recording; call on shutdown. */
  shutdown(): Promise<void>;
}

const TRACER_NAME = 'retail-media-platform';

let active: Tracing | undefined;

/** True once startTracing installed an exporter; with it off, the helpers below cost next to nothing. */
export const tracingEnabled = (): boolean => active !== undefined;

/**
 * Installs the process's tracer: W3C trace context in and out of every hop (gRPC metadata, NATS
 * headers), the active span carried by AsyncLocalStorage, spans exported by OTLP/HTTP or to the
 * exporter given. One per process: a second call (two apps started in one test process) keeps the
 * first and its shutdown is a no-op.
 */
export function startTracing({ serviceName, otlpEndpoint, exporter }: TracingOptions): Tracing {
  const noop: Tracing = { shutdown: async () => undefined };
  if (active) return noop;
  const target = exporter ?? (otlpEndpoint ? new OTLPTraceExporter({ url: tracesUrl(otlpEndpoint) }) : undefined);
  if (!target) return noop;
  // A test reads spans as soon as they end; a service batches them off the request path.
  const processor = exporter ? new SimpleSpanProcessor(target) : new BatchSpanProcessor(target);
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ 'service.name': serviceName }), spanProcessors: [processor] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  const tracing: Tracing = {
    shutdown: async () => {
      if (active !== tracing) return;
      active = undefined;
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
  active = tracing;
  return tracing;
}

/** The OTLP/HTTP traces path under a collector's base URL, as the OpenTelemetry spec builds it. */
export function tracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/traces`;
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The parent to use instead of the active span (a context extracted from an incoming hop). */
  parent?: Context;
}

/**
 * Runs `work` inside a new span that is active for everything it awaits (so a query or a call it
 * makes is a child), ending it when `work` settles; a throw marks it as an error. With tracing off it
 * only calls `work` (span undefined).
 */
export function inSpan<T>(name: string, options: SpanOptions, work: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!active) return work(undefined);
  const tracer = trace.getTracer(TRACER_NAME);
  const parent = options.parent ?? context.active();
  return tracer.startActiveSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes }, parent, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      markFailed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Starts a span that the caller ends (one that outlives a callback, e.g. an HTTP request); undefined with tracing off. */
export function startSpan(name: string, options: SpanOptions = {}): { span: Span; context: Context } | undefined {
  if (!active) return undefined;
  const parent = options.parent ?? context.active();
  const span = trace.getTracer(TRACER_NAME).startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/** Runs `work` with `ctx` active (a span started by startSpan); without tracing, just runs it. */
export function withContext<T>(ctx: Context | undefined, work: () => T): T {
  return ctx ? context.with(ctx, work) : work();
}

export function markFailed(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

export function markStatus(span: Span, failed: boolean, message?: string): void {
  if (failed) span.setStatus({ code: SpanStatusCode.ERROR, message });
}

/**
 * Writes the active span's trace context (`traceparent`, `tracestate`) into a carrier of string
 * headers: gRPC metadata, NATS headers, an outbox row (`from`: another context than the active one).
 * Nothing without tracing or a span.
 */
export function injectTraceContext(set: (key: string, value: string) => void, from?: Context): void {
  if (!active) return;
  propagation.inject(from ?? context.active(), undefined, { set: (_carrier, key, value) => set(key, value) });
}

/** The context a hop's headers carry (the caller's span as parent); the active one when they carry none. */
export function extractTraceContext(get: (key: string) => string | undefined): Context | undefined {
  if (!active) return undefined;
  return propagation.extract(context.active(), undefined, {
    get: (_carrier, key) => get(key),
    keys: () => ['traceparent', 'tracestate'],
  });
}
