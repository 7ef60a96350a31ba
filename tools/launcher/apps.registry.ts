/**
 * Every deployable, in start order. The launcher starts those whose main.ts exists, so the
 * system grows by adding an app, not by editing the launcher.
 */
export interface AppSpec {
  name: string;
  entry: string;
  /**
   * How readiness is observed: gRPC services by grpc.health.v1 on their port (GRPC_PORT_BASE +
   * offset, also handed to the gateway as <NAME>_ADDR), the gateway by /healthz, workers by their
   * health endpoint on HEALTH_PORT.
   */
  readiness: { grpcPortOffset: number } | { httpPath: string; portVariable: 'PORT' | 'HEALTH_PORT' };
}

const service = (name: string, grpcPortOffset: number): AppSpec => ({ name, entry: `apps/${name}/src/main.ts`, readiness: { grpcPortOffset } });
const worker = (name: string): AppSpec => ({ name, entry: `apps/${name}/src/main.ts`, readiness: { httpPath: '/healthz', portVariable: 'HEALTH_PORT' } });

export const APPS: AppSpec[] = [
  service('channels-plans', 0),
  service('content-creative', 1),
  service('asset-sources', 2),
  service('storage-library', 3),
  service('tagging-trackers', 4),
  service('templates', 5),
  worker('export-renderer'),
  worker('storage-worker'),
  { name: 'gateway', entry: 'apps/gateway/src/main.ts', readiness: { httpPath: '/healthz', portVariable: 'PORT' } },
];

/** CHANNELS_PLANS_ADDR and friends, as the gateway expects them. */
export const addressVariable = (name: string) => `${name.toUpperCase().replace(/-/g, '_')}_ADDR`;
