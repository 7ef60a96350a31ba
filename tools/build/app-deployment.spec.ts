// Every app under apps/ ships with all a cluster needs, in every overlay as `kubectl kustomize`
// renders it: its image, a hardened Deployment with requests and limits, readiness and liveness
// probes of its kind, a PodDisruptionBudget, and an HPA for the HTTP edges (gateway, ad server) and
// the gRPC services (a ScaledObject for each worker where the keda component is on), a migration Job
// for each app that owns a schema and none for the others. The list of apps is read from
// apps/, so an app added there fails here until its manifests exist.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { STORAGE_JOB_KINDS } from '@contracts/domain';
import { SERVICE_ENDPOINTS } from '@contracts/proto';
import { APPS, K8S_DIR, OVERLAYS, renderOverlay, type AppFacts, type RenderedObject } from './deploy-inventory';
import { hardeningProblems, podSpec, type Container, type K8sObject } from './workload-rules';

const GRPC_PORTS = new Map(Object.values(SERVICE_ENDPOINTS).map((endpoint) => [endpoint.label as string, endpoint.port]));
/** runWorker's health endpoint, as every worker Deployment sets it. */
const WORKER_HEALTH_PORT = 8090;
/** Components that run infrastructure (dev only) or that scale apps, not an app of their own. */
const NON_APP_COMPONENTS = new Set(['mariadb', 'minio', 'nats', 'keda']);

const byKind = (docs: RenderedObject[], kind: string) => docs.filter((doc) => doc.kind === kind);
const selects = (selector: unknown, app: string) =>
  (selector as { matchLabels?: Record<string, string> } | undefined)?.matchLabels?.['app.kubernetes.io/name'] === app;

/** What is missing or wrong for one app in one rendered overlay; [] when it has everything. */
function deploymentProblems(app: AppFacts, docs: RenderedObject[], overlay: string): string[] {
  const deployment = byKind(docs, 'Deployment').find((doc) => doc.metadata.name === app.name) as unknown as K8sObject | undefined;
  if (!deployment) return ['no Deployment'];
  const problems = hardeningProblems(deployment);
  if (deployment.metadata?.labels?.['app.kubernetes.io/component'] !== app.kind) problems.push(`component label is not ${app.kind}`);
  const container = podSpec(deployment).containers.find((c) => c.name === app.name) as Container | undefined;
  if (!container) return [...problems, `no container named ${app.name}`];

  const image = container.image ?? '';
  const imagePattern = new RegExp(`(^|/)retail-media/${app.name}:(?!latest$)[\\w.-]+$`);
  if (!imagePattern.test(image)) problems.push(`image ${image} is not retail-media/${app.name} with a pinned tag`);
  if (overlay.startsWith('production') && !/^[\w.-]+\.[a-z]+\//.test(image)) problems.push(`image ${image} is not from a registry`);

  problems.push(...probeProblems(app, container));

  const pdb = byKind(docs, 'PodDisruptionBudget').filter((doc) => selects(doc.spec?.selector, app.name));
  if (pdb.length !== 1) problems.push(`${pdb.length} PodDisruptionBudgets select it`);

  const hpas = byKind(docs, 'HorizontalPodAutoscaler').filter((doc) => (doc.spec?.scaleTargetRef as { name?: string })?.name === app.name);
  const scaledObjects = byKind(docs, 'ScaledObject').filter((doc) => (doc.spec?.scaleTargetRef as { name?: string })?.name === app.name);
  if (app.kind === 'worker') {
    if (hpas.length > 0) problems.push('a worker is scaled on lag (ScaledObject), not by an HPA of its own');
  } else {
    if (hpas.length !== 1) problems.push(`${hpas.length} HorizontalPodAutoscalers target it`);
    if (deployment.spec?.replicas !== undefined) problems.push('sets replicas, which the HPA owns');
  }
  if (scaledObjects.length > 0 && deployment.spec?.replicas !== undefined) problems.push('sets replicas, which KEDA owns');
  problems.push(...migrationProblems(app, container, docs));
  return problems;
}

const envOf = (container: Container | undefined, name: string) => container?.env?.find((variable) => variable.name === name);

/**
 * An app that owns a schema (the gateway, every gRPC service) migrates it once per release: its Job
 * `<app>-migrate` runs the same image with SCHEMA_MIGRATIONS=only and the same database credentials,
 * and its replicas run with SCHEMA_MIGRATIONS=require-current. An app that owns none (a worker, the ad
 * server) has neither, nor any database credentials.
 */
function migrationProblems(app: AppFacts, container: Container, docs: RenderedObject[]): string[] {
  const job = byKind(docs, 'Job').find((doc) => doc.metadata.name === `${app.name}-migrate`) as unknown as K8sObject | undefined;
  const replicasMode = envOf(container, 'SCHEMA_MIGRATIONS')?.value;
  if (!app.ownsSchema) {
    const problems: string[] = [];
    if (job || replicasMode) problems.push(`${app.name} owns no schema, yet has a migration Job or SCHEMA_MIGRATIONS`);
    for (const name of ['MYSQL_URL', 'MYSQL_SERVICE_PASSWORD']) if (envOf(container, name)) problems.push(`${app.name} owns no schema, yet is given ${name}`);
    return problems;
  }
  const problems: string[] = [];
  if (replicasMode !== 'require-current') problems.push(`replicas run with SCHEMA_MIGRATIONS=${replicasMode}, not require-current`);
  if (!job) return [...problems, `no Job ${app.name}-migrate`];
  problems.push(...hardeningProblems(job).map((problem) => `Job: ${problem}`));
  const migrator = podSpec(job).containers[0];
  if (migrator.image !== container.image) problems.push(`Job image ${migrator.image} is not the Deployment's ${container.image}`);
  if (envOf(migrator, 'SCHEMA_MIGRATIONS')?.value !== 'only') problems.push('Job does not run with SCHEMA_MIGRATIONS=only');
  for (const name of ['MYSQL_URL', 'MYSQL_SERVICE_PASSWORD'])
    if (JSON.stringify(envOf(migrator, name)) !== JSON.stringify(envOf(container, name))) problems.push(`Job's ${name} is not the Deployment's`);
  return problems;
}

function probeProblems(app: AppFacts, container: Container): string[] {
  const problems: string[] = [];
  const expectProbe = (probe: 'readinessProbe' | 'livenessProbe', expected: object) => {
    const actual = container[probe] as Record<string, unknown> | undefined;
    const kind = Object.keys(expected)[0];
    if (JSON.stringify(actual?.[kind]) !== JSON.stringify((expected as Record<string, unknown>)[kind]))
      problems.push(`${probe} is ${JSON.stringify(actual ?? null)}, expected ${JSON.stringify(expected)}`);
  };
  const env = (name: string) => container.env?.find((variable) => variable.name === name)?.value;
  if (app.kind === 'grpc-service') {
    const port = GRPC_PORTS.get(app.name);
    if (port === undefined) return [`no SERVICE_ENDPOINTS entry for ${app.name}`];
    // grpc.health.v1: NOT_SERVING until migrations finish and again once shutdown starts.
    expectProbe('readinessProbe', { grpc: { port } });
    expectProbe('livenessProbe', { grpc: { port } });
  } else if (app.kind === 'worker') {
    expectProbe('readinessProbe', { httpGet: { path: '/readyz', port: 'health' } });
    expectProbe('livenessProbe', { httpGet: { path: '/healthz', port: 'health' } });
    const port = container.ports?.find((p) => p.name === 'health')?.containerPort;
    if (port !== WORKER_HEALTH_PORT || env('HEALTH_PORT') !== String(WORKER_HEALTH_PORT))
      problems.push(`health port: containerPort ${port}, HEALTH_PORT ${env('HEALTH_PORT')}; both must be ${WORKER_HEALTH_PORT}`);
    // runWorker listens on loopback by default, where the kubelet cannot reach it.
    if (env('HEALTH_HOST') !== '0.0.0.0') problems.push('HEALTH_HOST is not 0.0.0.0');
  } else {
    expectProbe('readinessProbe', { httpGet: { path: '/readyz', port: 'http' } });
    expectProbe('livenessProbe', { httpGet: { path: '/healthz', port: 'http' } });
  }
  return problems;
}

describe('every app under apps/ deploys', () => {
  it('finds the gateway, the gRPC services of SERVICE_ENDPOINTS and at least one worker, each with its kind', () => {
    const kinds = Object.fromEntries(APPS.map((app) => [app.name, app.kind]));
    expect(kinds.gateway).toBe('edge');
    for (const service of GRPC_PORTS.keys()) expect({ service, kind: kinds[service] }).toEqual({ service, kind: 'grpc-service' });
    expect(kinds['storage-worker']).toBe('worker');
    expect(kinds['ad-server']).toBe('edge');
    expect(
      APPS.filter((app) => app.kind === 'grpc-service')
        .map((app) => app.name)
        .sort(),
    ).toEqual([...GRPC_PORTS.keys()].sort());
  });

  it('has a component for every app beyond the base, and none enabled for an app that does not exist', () => {
    const components = readdirSync(join(K8S_DIR, 'components')).filter((name) => !NON_APP_COMPONENTS.has(name));
    const apps = APPS.map((app) => app.name);
    expect(apps.filter((app) => app !== 'gateway' && app !== 'channels-plans' && !components.includes(app))).toEqual([]);
    // A component whose app is not built (a planned app) may exist, but no overlay may run it.
    const unbuilt = components.filter((name) => !apps.includes(name));
    for (const overlay of OVERLAYS) {
      const deployments = byKind(renderOverlay(overlay), 'Deployment').map((doc) => doc.metadata.name);
      expect({ overlay, runsUnbuilt: unbuilt.filter((name) => deployments.includes(name)) }).toEqual({ overlay, runsUnbuilt: [] });
    }
  });

  describe.each(OVERLAYS)('overlays/%s', (overlay) => {
    it.each(APPS.map((app) => [app.name, app] as const))(
      '%s: image, hardened workload with requests and limits, readiness and liveness probes, PDB, autoscaling, migrations once per release',
      (name, app) => {
        expect({ app: name, problems: deploymentProblems(app, renderOverlay(overlay), overlay) }).toEqual({ app: name, problems: [] });
      },
    );
  });

  describe('the rules catch what they are for', () => {
    const dev = () => renderOverlay('dev');
    const without = (docs: RenderedObject[], kind: string, name: string) => docs.filter((doc) => !(doc.kind === kind && doc.metadata.name === name));
    const storageWorker = APPS.find((app) => app.name === 'storage-worker') as AppFacts;
    const gateway = APPS.find((app) => app.name === 'gateway') as AppFacts;

    it('a worker without its probes, its PDB, or its health host', () => {
      const docs = structuredClone(dev());
      const deployment = docs.find((doc) => doc.kind === 'Deployment' && doc.metadata.name === 'storage-worker') as unknown as K8sObject;
      const container = podSpec(deployment).containers[0];
      delete container.readinessProbe;
      container.env = container.env?.filter((variable) => variable.name !== 'HEALTH_HOST');
      const problems = deploymentProblems(storageWorker, without(docs, 'PodDisruptionBudget', 'storage-worker'), 'dev');
      expect(problems).toEqual([expect.stringMatching(/^readinessProbe is null/), 'HEALTH_HOST is not 0.0.0.0', '0 PodDisruptionBudgets select it']);
    });

    it('the gateway without its HPA, with a fixed replica count and no memory limit', () => {
      const docs = structuredClone(dev());
      const deployment = docs.find((doc) => doc.kind === 'Deployment' && doc.metadata.name === 'gateway') as unknown as K8sObject;
      (deployment.spec as { replicas?: number }).replicas = 2;
      delete podSpec(deployment).containers[0].resources?.limits?.memory;
      expect(deploymentProblems(gateway, without(docs, 'HorizontalPodAutoscaler', 'gateway'), 'dev')).toEqual([
        'container gateway: no resources.limits.memory',
        '0 HorizontalPodAutoscalers target it',
        'sets replicas, which the HPA owns',
      ]);
    });

    it('a service whose replicas migrate, or whose migration Job is missing', () => {
      const docs = structuredClone(dev());
      const deployment = docs.find((doc) => doc.kind === 'Deployment' && doc.metadata.name === 'templates') as unknown as K8sObject;
      const container = podSpec(deployment).containers[0];
      container.env = container.env?.filter((variable) => variable.name !== 'SCHEMA_MIGRATIONS');
      const templates = APPS.find((app) => app.name === 'templates') as AppFacts;
      expect(deploymentProblems(templates, without(docs, 'Job', 'templates-migrate'), 'dev')).toEqual([
        'replicas run with SCHEMA_MIGRATIONS=undefined, not require-current',
        'no Job templates-migrate',
      ]);
    });

    it('an app with no Deployment at all', () => {
      expect(
        deploymentProblems({ name: 'an-app-not-deployed', kind: 'worker', peers: [], readsPublicAddresses: true, ownsSchema: false }, dev(), 'dev'),
      ).toEqual(['no Deployment']);
    });

    const adServer = APPS.find((app) => app.name === 'ad-server') as AppFacts;

    it('the ad server without its HPA, its PDB, or its probes on the named port http', () => {
      const docs = structuredClone(dev());
      const deployment = docs.find((doc) => doc.kind === 'Deployment' && doc.metadata.name === 'ad-server') as unknown as K8sObject;
      const container = podSpec(deployment).containers[0];
      (container.readinessProbe as { httpGet: { port: string | number } }).httpGet.port = 8070;
      delete container.livenessProbe;
      const docsWithout = without(without(docs, 'HorizontalPodAutoscaler', 'ad-server'), 'PodDisruptionBudget', 'ad-server');
      expect(deploymentProblems(adServer, docsWithout, 'dev')).toEqual([
        expect.stringMatching(/^readinessProbe is .*"port":8070/),
        expect.stringMatching(/^livenessProbe is null/),
        '0 PodDisruptionBudgets select it',
        '0 HorizontalPodAutoscalers target it',
      ]);
    });

    it('the ad server, which owns no schema, given a migration Job or database credentials', () => {
      const docs = structuredClone(dev());
      const deployment = docs.find((doc) => doc.kind === 'Deployment' && doc.metadata.name === 'ad-server') as unknown as K8sObject;
      const container = podSpec(deployment).containers[0];
      container.env = [...(container.env ?? []), { name: 'SCHEMA_MIGRATIONS', value: 'require-current' }, { name: 'MYSQL_URL', value: 'mysql://x@db:3306' }];
      const gatewayJob = docs.find((doc) => doc.kind === 'Job' && doc.metadata.name === 'gateway-migrate') as RenderedObject;
      const adServerJob = { ...structuredClone(gatewayJob), metadata: { ...gatewayJob.metadata, name: 'ad-server-migrate' } };
      expect(deploymentProblems(adServer, [...docs, adServerJob], 'dev')).toEqual([
        'ad-server owns no schema, yet has a migration Job or SCHEMA_MIGRATIONS',
        'ad-server owns no schema, yet is given MYSQL_URL',
      ]);
    });
  });
});

describe('components/keda: workers scaled on their JetStream consumer lag', () => {
  const kedaOverlays = OVERLAYS.filter((overlay) => byKind(renderOverlay(overlay), 'ScaledObject').length > 0);

  it('is rendered by at least one overlay (production-keda)', () => {
    expect(kedaOverlays).toContain('production-keda');
  });

  describe.each(kedaOverlays)('overlays/%s', (overlay) => {
    it('gives every worker under apps/ one ScaledObject reading its durable consumers on JOBS_REQUESTED, and no other app one', () => {
      const scaled = byKind(renderOverlay(overlay), 'ScaledObject');
      const workers = APPS.filter((app) => app.kind === 'worker').map((app) => app.name);
      expect(scaled.map((doc) => (doc.spec?.scaleTargetRef as { name: string }).name).sort()).toEqual(workers.sort());
      for (const doc of scaled) {
        const target = (doc.spec?.scaleTargetRef as { name: string }).name;
        const triggers = doc.spec?.triggers as { type: string; metadata: Record<string, string> }[];
        expect(triggers.length).toBeGreaterThan(0);
        for (const trigger of triggers) {
          expect(trigger.type).toBe('nats-jetstream');
          expect(trigger.metadata).toMatchObject({ stream: 'JOBS_REQUESTED', consumer: expect.stringMatching(new RegExp(`^${target}-[a-z-]+$`)) });
          expect(Number(trigger.metadata.lagThreshold)).toBeGreaterThan(0);
        }
      }
    });

    it("names the storage worker's own consumers, one per job kind (runWorker's durable `<worker>-<kind>`)", () => {
      const storage = byKind(renderOverlay(overlay), 'ScaledObject').find((doc) => doc.metadata.name === 'storage-worker');
      const consumers = (storage?.spec?.triggers as { metadata: { consumer: string } }[]).map((trigger) => trigger.metadata.consumer);
      expect(consumers.sort()).toEqual(
        Object.values(STORAGE_JOB_KINDS)
          .map((kind) => `storage-worker-${kind}`)
          .sort(),
      );
    });
  });
});
