import type { AddressInfo } from 'node:net';
import { Counter, Registry } from 'prom-client';
import { serveMetrics } from './metrics-endpoint';
import { counter, processRegistry } from './metrics-registry';

describe(serveMetrics.name, () => {
  it("answers /metrics with the process registry (Node's own metrics included) and any extra registry, and 404 elsewhere", async () => {
    const extra = new Registry();
    new Counter({ name: 'spec_extra_total', help: 'from another registry', registers: [extra] }).inc(2);
    counter({ name: 'spec_events_total', help: 'counted by a mechanism', labelNames: ['kind'] }).inc({ kind: 'a' }, 3);
    const server = await serveMetrics('127.0.0.1', 0, [extra]);
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const response = await fetch(`${base}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(processRegistry.contentType);
      const text = await response.text();
      expect(text).toMatch(/^spec_events_total\{kind="a"\} 3$/m);
      expect(text).toMatch(/^spec_extra_total 2$/m);
      expect(text).toMatch(/^process_cpu_seconds_total /m);
      expect((await fetch(`${base}/other`)).status).toBe(404);
    } finally {
      server.close();
    }
  });

  it('hands out the one metric of a name however often a mechanism asks for it', () => {
    const first = counter({ name: 'spec_shared_total', help: 'shared' });
    expect(counter({ name: 'spec_shared_total', help: 'shared' })).toBe(first);
  });
});
