import { SERVICE_ENDPOINTS } from '@contracts/proto';

/**
 * Every deployable, in start order. The launcher starts those whose main.ts exists, so the
 * system grows by adding an app, not by editing the launcher.
 */
export interface AppSpec {
  name: string;
  entry: string;
  /**
   * How readiness is observed: gRPC services by grpc.health.v1 on their port (declared in
   * SERVICE_ENDPOINTS, also handed to the gateway and peers as <NAME>_ADDR), the gateway by
   * /healthz, workers by their health endpoint on HEALTH_PORT.
   */
  readiness: { grpcPort: number; addressVariable: string } | { httpPath: string; portVariable: 'PORT' | 'HEALTH_PORT' };
}

const entry = (name: string) => `apps/${name}/src/main.ts`;
const service = ({ label, port, addressVariable }: { label: string; port: number; addressVariable: string }): AppSpec => ({
  name: label,
  entry: entry(label),
  readiness: { grpcPort: port, addressVariable },
});
const worker = (name: string): AppSpec => ({ name, entry: entry(name), readiness: { httpPath: '/healthz', portVariable: 'HEALTH_PORT' } });

export const APPS: AppSpec[] = [
  ...Object.values(SERVICE_ENDPOINTS).map(service),
  worker('export-renderer'),
  worker('storage-worker'),
  { name: 'gateway', entry: entry('gateway'), readiness: { httpPath: '/healthz', portVariable: 'PORT' } },
];

/**
 * Where each service listens under `npm start`: its declared port, or, with GRPC_PORT_BASE set
 * (tests running beside a started system), the declared ports moved as a block to start there.
 */
export function grpcPortOf(app: AppSpec, grpcPortBase: number | undefined): number | undefined {
  if (!('grpcPort' in app.readiness)) return undefined;
  if (grpcPortBase === undefined) return app.readiness.grpcPort;
  const lowest = Math.min(...Object.values(SERVICE_ENDPOINTS).map((endpoint) => endpoint.port));
  return grpcPortBase + app.readiness.grpcPort - lowest;
}
