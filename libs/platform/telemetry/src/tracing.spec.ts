import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { extractTraceContext, injectTraceContext, inSpan, SpanKind, startTracing, tracesUrl, tracingEnabled } from './tracing';

describe('tracing', () => {
  it('is off until started: spans are no-ops and nothing is injected', async () => {
    expect(tracingEnabled()).toBe(false);
    const carrier: Record<string, string> = {};
    await expect(
      inSpan('work', {}, async (span) => {
        injectTraceContext((key, value) => (carrier[key] = value));
        return span;
      }),
    ).resolves.toBeUndefined();
    expect(carrier).toEqual({});
  });

  describe('once started', () => {
    const exporter = new InMemorySpanExporter();
    let tracing: ReturnType<typeof startTracing>;
    beforeAll(() => {
      tracing = startTracing({ serviceName: 'spec', exporter });
    });
    afterAll(() => tracing.shutdown());
    beforeEach(() => exporter.reset());

    it('makes a span the parent of the spans started while it is active, across awaits', async () => {
      await inSpan('outer', { kind: SpanKind.SERVER }, async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        await inSpan('inner', {}, async () => undefined);
      });
      const [inner, outer] = exporter.getFinishedSpans();
      expect([inner.name, outer.name]).toEqual(['inner', 'outer']);
      expect(inner.spanContext().traceId).toBe(outer.spanContext().traceId);
      expect(inner.parentSpanContext?.spanId).toBe(outer.spanContext().spanId);
      expect(outer.resource.attributes['service.name']).toBe('spec');
    });

    it("carries a span's context through a carrier of headers to the next hop, which continues the trace", async () => {
      const headers: Record<string, string> = {};
      await inSpan('caller', { kind: SpanKind.CLIENT }, async () => injectTraceContext((key, value) => (headers[key] = value)));
      expect(headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);

      exporter.reset();
      await inSpan('callee', { kind: SpanKind.SERVER, parent: extractTraceContext((key) => headers[key]) }, async () => undefined);
      const [callee] = exporter.getFinishedSpans();
      expect(`00-${callee.spanContext().traceId}-${callee.parentSpanContext?.spanId}-01`).toBe(headers.traceparent);
    });

    it('marks a span whose work threw as an error and rethrows', async () => {
      await expect(inSpan('failing', {}, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
      const [failing] = exporter.getFinishedSpans();
      expect(failing.status).toMatchObject({ code: 2, message: 'boom' });
      expect(failing.events.map((event) => event.name)).toContain('exception');
    });
  });

  it('builds the OTLP traces URL under a collector base URL', () => {
    expect(tracesUrl('http://collector:4318')).toBe('http://collector:4318/v1/traces');
    expect(tracesUrl('http://collector:4318/')).toBe('http://collector:4318/v1/traces');
  });
});
