// What the deployment tests hold the manifests to, read from the code rather than listed by hand:
// the apps under apps/ and their kind, the peers each service calls, which apps read public
// addresses; and the overlays as `kubectl kustomize` renders them.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { KUBECTL, requireTool } from '@platform/testing';
import { WORKSPACE_ROOT } from './bundle';

export const K8S_DIR = join(WORKSPACE_ROOT, 'deploy', 'k8s');
const APPS_DIR = join(WORKSPACE_ROOT, 'apps');

/** How an app runs, which decides its probes, its autoscaler and who may call it. */
export type AppKind = 'edge' | 'grpc-service' | 'worker';

export interface AppFacts {
  name: string;
  kind: AppKind;
  /** Services it calls: the `<peer>.peer.ts` adapters of its peers/ folder. */
  peers: string[];
  /** It reads customer URLs or buckets through an outbound guard (createOutboundFetch, openCustomerBucket). */
  readsPublicAddresses: boolean;
  /**
   * It owns a MySQL schema, so it migrates it once per release (a Job) and reaches MySQL: every gRPC
   * service (runGrpcService's config holds the MySQL fields and applies the migrations), and any other
   * app whose code reads the MySQL fields (the gateway). The ad server and the workers own none.
   */
  ownsSchema: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(name) && !/\.(spec|integration-spec|e2e-spec)\.ts$/.test(name) ? [path] : [];
  });
}

/**
 * The kind, from what main.ts runs: runGrpcService, runWorker, or an HTTP edge (the gateway's own
 * start; an app that opens the process shell and listens with its own HTTP server, as the ad server does).
 */
function kindOf(app: string, main: string, sources: string[]): AppKind {
  if (/\brunGrpcService\(/.test(main)) return 'grpc-service';
  if (/\brunWorker\(/.test(main)) return 'worker';
  if (app === 'gateway') return 'edge';
  if (/\bopenProcessShell\(/.test(main) && sources.some((source) => /\bcreateServer\(/.test(source) && /from 'node:http'/.test(source))) return 'edge';
  throw new Error(
    `apps/${app}/src/main.ts runs neither runGrpcService nor runWorker, nor an HTTP server of its own: teach tools/build/deploy-inventory.ts its kind`,
  );
}

export function appFacts(app: string): AppFacts {
  const src = join(APPS_DIR, app, 'src');
  const peersDir = join(src, 'peers');
  const peers = existsSync(peersDir)
    ? readdirSync(peersDir)
        .filter((name) => name.endsWith('.peer.ts'))
        .map((name) => name.replace(/\.peer\.ts$/, ''))
        .sort()
    : [];
  const sources = sourceFiles(src).map((file) => readFileSync(file, 'utf8'));
  const readsPublicAddresses = sources.some((source) => /\b(createOutboundFetch|openCustomerBucket)\(/.test(source));
  const kind = kindOf(app, readFileSync(join(src, 'main.ts'), 'utf8'), sources);
  const ownsSchema = kind === 'grpc-service' || sources.some((source) => /\b(mysqlFields|MYSQL_URL)\b/.test(source));
  return { name: app, kind, peers, readsPublicAddresses, ownsSchema };
}

/** Every deployable: a folder of apps/ with a src/main.ts. */
export const APPS: AppFacts[] = readdirSync(APPS_DIR)
  .filter((app) => existsSync(join(APPS_DIR, app, 'src', 'main.ts')))
  .sort()
  .map(appFacts);

/** Every overlay under deploy/k8s/overlays. */
export const OVERLAYS = readdirSync(join(K8S_DIR, 'overlays')).sort();

export interface RenderedObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  [field: string]: unknown;
}

/** Every document of a multi-document YAML text; a syntax error throws. */
export function parseDocuments(text: string, source: string): unknown[] {
  return parseAllDocuments(text).flatMap((document) => {
    if (document.errors.length > 0) throw new Error(`${source}: ${document.errors.map((e) => e.message).join('; ')}`);
    const value: unknown = document.toJS();
    return value === null || value === undefined ? [] : [value];
  });
}

const rendered = new Map<string, RenderedObject[]>();

/** The overlay as `kubectl apply -k` would send it; a machine without kubectl fails saying what to install. */
export function renderOverlay(overlay: string): RenderedObject[] {
  const cached = rendered.get(overlay);
  if (cached) return cached;
  const kubectl = requireTool(KUBECTL);
  const run = spawnSync(kubectl, ['kustomize', join(K8S_DIR, 'overlays', overlay)], { encoding: 'utf8', timeout: 60_000 });
  if (run.status !== 0) throw new Error(`kubectl kustomize overlays/${overlay} failed: ${run.stderr}`);
  const docs = parseDocuments(run.stdout, overlay) as RenderedObject[];
  rendered.set(overlay, docs);
  return docs;
}
