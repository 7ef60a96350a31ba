/**
 * `npm start -- --replicas export-renderer=3,asset-sources=2`: how many processes of each app the
 * launcher runs, and what tells the replicas of one app apart on one machine (ports, names), as a
 * cluster runs several pods of one Deployment.
 */

/** Most replicas of one app the launcher runs on one machine. */
export const MAX_REPLICAS = 9;
/** A service's replica i listens on its port + i * this, clear of every other declared port. */
export const REPLICA_PORT_STRIDE = 100;

/** The replica counts asked for on the command line, by app; apps not named run once. */
export function parseReplicas(args: readonly string[], knownApps: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    let value: string | undefined;
    if (arg === '--replicas') value = args[(i += 1)];
    else if (arg.startsWith('--replicas=')) value = arg.slice('--replicas='.length);
    else throw new Error(`unknown argument ${arg}: the launcher takes --replicas <app>=<n>,...`);
    if (!value) throw new Error('--replicas needs <app>=<n>[,<app>=<n>...]');
    for (const entry of value.split(',')) {
      const [app, count, ...rest] = entry.split('=');
      if (!knownApps.includes(app)) throw new Error(`--replicas: unknown app ${JSON.stringify(app)} (one of ${knownApps.join(', ')})`);
      const n = Number(count);
      if (rest.length > 0 || !Number.isInteger(n) || n < 1 || n > MAX_REPLICAS)
        throw new Error(`--replicas: ${JSON.stringify(entry)} must be <app>=<n> with n from 1 to ${MAX_REPLICAS}`);
      counts.set(app, n);
    }
  }
  return counts;
}

/** The name a replica is supervised and logged under: the app's own when it runs once, `<app>#<i>` otherwise. */
export const replicaName = (app: string, index: number, count: number): string => (count === 1 ? app : `${app}#${index + 1}`);

/** The gRPC ports of a service's replicas, and the address its callers dial: one address, or an `ipv4:` list they round-robin over. */
export function serviceReplicaAddresses(port: number, count: number): { ports: number[]; address: string } {
  const ports = Array.from({ length: count }, (_, i) => port + i * REPLICA_PORT_STRIDE);
  const address = count === 1 ? `127.0.0.1:${port}` : `ipv4:${ports.map((p) => `127.0.0.1:${p}`).join(',')}`;
  return { ports, address };
}

/**
 * The first replica of an app that owns a schema migrates it (`apply`); the others start only on a
 * current schema (`require-current`), as a cluster's replicas do after the release's migration Job.
 */
export const schemaMigrationsFor = (index: number): 'apply' | 'require-current' => (index === 0 ? 'apply' : 'require-current');
