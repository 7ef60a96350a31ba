import { Counter, Histogram, Registry } from 'prom-client';

/** hit: answered from memory; miss: asked the backend (and filled); bypass: the cache was off or not live. */
export type CacheOutcome = 'hit' | 'miss' | 'bypass';

export interface HttpMetrics {
  registry: Registry;
  observe(labels: { method: string; route: string; status: number }, seconds: number): void;
  countCacheLookup(route: string, outcome: CacheOutcome): void;
}

/**
 * Request rate, errors and latency by method, route template (never raw paths: ids would explode the
 * label set) and status. Served beside the process registry of @platform/telemetry (gRPC client
 * calls, Node's process metrics).
 */
export function createHttpMetrics(): HttpMetrics {
  const registry = new Registry();
  const duration = new Histogram({
    name: 'http_server_request_duration_seconds',
    help: 'Duration of HTTP requests answered by the gateway',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const cacheLookups = new Counter({
    name: 'gateway_response_cache_lookups_total',
    help: 'Requests of cacheable routes by outcome',
    labelNames: ['route', 'outcome'] as const,
    registers: [registry],
  });
  return {
    registry,
    observe: ({ method, route, status }, seconds) => duration.observe({ method, route, status: String(status) }, seconds),
    countCacheLookup: (route, outcome) => cacheLookups.inc({ route, outcome }),
  };
}
