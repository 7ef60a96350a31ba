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
  /**
   * An HTTP app other than the gateway that listens on PORT: the launcher variable that sets its port
   * (so it never takes the gateway's PORT), that port's default, and the variable through which the
   * gateway is told its URL (the gateway forwards its paths to it, as an ingress does in a cluster).
   */
  listens?: { portVariable: string; defaultPort: number; urlVariable: string };
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
  // Tags generated locally point at the gateway (PUBLIC_BASE_URL), which forwards `/serve/` here.
  {
    name: 'ad-server',
    entry: entry('ad-server'),
    readiness: { httpPath: '/healthz', portVariable: 'PORT' },
    listens: { portVariable: 'AD_SERVER_PORT', defaultPort: 8070, urlVariable: 'AD_SERVER_URL' },
  },
  { name: 'gateway', entry: entry('gateway'), readiness: { httpPath: '/healthz', portVariable: 'PORT' } },
];

/**
 * The ports an app of `listens` runs its replicas on under `npm start`: from its launcher variable
 * (or its default), one up per replica; and the URL the gateway forwards to (the first replica's).
 */
export function listenPortsOf(app: AppSpec, env: NodeJS.ProcessEnv, count: number): { ports: number[]; url: string } | undefined {
  if (!app.listens) return undefined;
  const first = Number(env[app.listens.portVariable] ?? app.listens.defaultPort);
  const ports = Array.from({ length: count }, (_, i) => first + i);
  return { ports, url: `http://127.0.0.1:${first}` };
}

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
