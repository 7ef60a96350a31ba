import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type CounterConfiguration,
  type GaugeConfiguration,
  type HistogramConfiguration,
} from 'prom-client';

/**
 * The process's one metrics registry: what every platform mechanism (gRPC server and client, job
 * runner, outbox relay) counts, and Node's own process metrics (CPU, memory, event-loop lag, GC).
 * A process serves it on its metrics port (`serveMetrics`, or a worker's health port).
 */
export const processRegistry = new Registry();
/**
 * The event-loop lag histogram samples at this resolution. prom-client's default (10 ms) wakes an idle
 * process a hundred times a second, about 6 ms of CPU a second in each of our processes; lag worth an
 * alert is tens of milliseconds and more, which 50 ms sampling still shows.
 */
const EVENT_LOOP_MONITORING_PRECISION_MS = 50;
collectDefaultMetrics({ register: processRegistry, eventLoopMonitoringPrecision: EVENT_LOOP_MONITORING_PRECISION_MS });

/**
 * A metric of the process registry, created on first use. Mechanisms call this where they count, so
 * a module loaded (or a service started) twice in one process, as tests do, shares one metric
 * rather than failing on a duplicate name.
 */
function singleton<M>(name: string, create: () => M): M {
  return (processRegistry.getSingleMetric(name) as M | undefined) ?? create();
}

export const counter = <L extends string>(config: Omit<CounterConfiguration<L>, 'registers'>): Counter<L> =>
  singleton(config.name, () => new Counter({ ...config, registers: [processRegistry] }));

export const histogram = <L extends string>(config: Omit<HistogramConfiguration<L>, 'registers'>): Histogram<L> =>
  singleton(config.name, () => new Histogram({ ...config, registers: [processRegistry] }));

export const gauge = <L extends string>(config: Omit<GaugeConfiguration<L>, 'registers'>): Gauge<L> =>
  singleton(config.name, () => new Gauge({ ...config, registers: [processRegistry] }));

/** Latency buckets for calls that answer in milliseconds and time out in seconds. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Buckets for jobs and queue waits: from a fraction of a second to an hour. */
export const JOB_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];

/** A metric made on first use and kept: the hot path then pays one closure call, not a registry lookup. */
export function lazily<M>(create: () => M): () => M {
  let made: M | undefined;
  return () => (made ??= create());
}
