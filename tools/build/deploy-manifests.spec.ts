// Reads the real files under deploy/k8s and holds them to the deployment rules of deploy/README.md:
// non-root, read-only root filesystem, requests and limits, gRPC probes, and no secret in git.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { SERVICE_ENDPOINTS } from '@contracts/proto';
import { mysqlFields, secretKey, z } from '@platform/config';
import { WORKSPACE_ROOT } from './bundle';
import { APPS as INVENTORY, parseDocuments, renderOverlay } from './deploy-inventory';
import { allContainers, hardeningProblems, podSpec, type Container, type K8sObject } from './workload-rules';

const K8S = join(WORKSPACE_ROOT, 'deploy', 'k8s');
const README = readFileSync(join(WORKSPACE_ROOT, 'deploy', 'README.md'), 'utf8');

// ---- the shape of what we read (only the fields these rules look at) ----------------------------
interface Generator {
  name: string;
  behavior?: string;
  literals?: string[];
  files?: string[];
  envs?: string[];
}
interface Kustomization {
  apiVersion?: string;
  kind?: string;
  resources?: string[];
  components?: string[];
  patches?: { path?: string; patch?: string }[];
  patchesStrategicMerge?: string[];
  configMapGenerator?: Generator[];
  secretGenerator?: Generator[];
  images?: { name: string; newName?: string; newTag?: string }[];
}

interface Loaded<T> {
  /** Path relative to deploy/k8s, with forward slashes. */
  file: string;
  doc: T;
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(name) ? [path] : [];
  });
}

const rel = (path: string) => relative(K8S, path).split(sep).join('/');

const FILES = yamlFiles(K8S);
const KUSTOMIZATIONS: Loaded<Kustomization>[] = FILES.filter((path) => path.endsWith('kustomization.yaml')).map((path) => ({
  file: rel(path),
  doc: parseDocuments(readFileSync(path, 'utf8'), rel(path))[0] as Kustomization,
}));
/** Patch files are fragments, not resources: they are checked through the rendered overlays. */
const PATCH_FILES = new Set(
  KUSTOMIZATIONS.flatMap(({ file, doc }) =>
    [...(doc.patchesStrategicMerge ?? []), ...(doc.patches ?? []).flatMap((patch) => (patch.path ? [patch.path] : []))].map((ref) =>
      resolve(K8S, dirname(file), ref),
    ),
  ),
);
const DOCS: Loaded<K8sObject>[] = FILES.filter((path) => !path.endsWith('kustomization.yaml') && !PATCH_FILES.has(path)).flatMap((path) =>
  parseDocuments(readFileSync(path, 'utf8'), rel(path)).map((doc) => ({ file: rel(path), doc: doc as K8sObject })),
);

const WORKLOAD_KINDS = new Set(['Deployment', 'StatefulSet', 'DaemonSet']);
const isWorkload = (doc: K8sObject) => WORKLOAD_KINDS.has(doc.kind ?? '');
const envValue = (container: Container, name: string) => container.env?.find((env) => env.name === name);

/** Each gRPC service on the port SERVICE_ENDPOINTS declares. */
const GRPC_PORTS: Record<string, number> = Object.fromEntries(Object.values(SERVICE_ENDPOINTS).map((endpoint) => [endpoint.label, endpoint.port]));
/** Every app a manifest runs (a component may run an app not built yet); the built ones are the inventory's. */
const BUILT_APPS = INVENTORY.map((app) => app.name);
const OUR_IMAGE = /^retail-media\//;

const workloadName = (loaded: Loaded<K8sObject>) => `${loaded.doc.kind}/${loaded.doc.metadata?.name} (${loaded.file})`;

const WORKLOADS = DOCS.filter(({ doc }) => isWorkload(doc));
const APP_WORKLOADS = WORKLOADS.filter(({ doc }) => podSpec(doc).containers.some((c) => OUR_IMAGE.test(c.image ?? '')));
const findApp = (name: string) => APP_WORKLOADS.find(({ doc }) => doc.metadata?.name === name);
const BASE_APPS = ['gateway', 'channels-plans'];
/** Apps whose config holds no secret: the ad server (no schema, no internal calls, no object storage). */
const NEEDS_NO_SECRET = ['ad-server'];
const APPS = [...BASE_APPS, ...[...new Set(APP_WORKLOADS.map(({ doc }) => doc.metadata?.name as string))].filter((name) => !BASE_APPS.includes(name)).sort()];

describe('deploy/k8s manifests', () => {
  it('has a base, the two overlays and a component per app beyond the base', () => {
    const dirs = KUSTOMIZATIONS.map(({ file }) => dirname(file));
    expect(dirs).toEqual(expect.arrayContaining(['base', 'overlays/dev', 'overlays/production', 'components/minio']));
    for (const app of APPS.filter((name) => name !== 'gateway' && name !== 'channels-plans')) expect(dirs).toContain(`components/${app}`);
    expect(WORKLOADS.length).toBeGreaterThanOrEqual(APPS.length);
  });

  it('puts gateway and channels-plans in base and every other app in its own component, each once', () => {
    const locations = Object.fromEntries(APPS.map((app) => [app, APP_WORKLOADS.filter(({ doc }) => doc.metadata?.name === app).map(({ file }) => file)]));
    expect(locations).toEqual({
      gateway: ['base/gateway.yaml'],
      'channels-plans': ['base/channels-plans.yaml'],
      ...Object.fromEntries(APPS.slice(2).map((app) => [app, [`components/${app}/${app}.yaml`]])),
    });
  });

  describe.each(WORKLOADS.map((loaded) => [workloadName(loaded), loaded] as const))('%s', (_name, { doc }) => {
    it('is hardened: requests and limits, non-root, read-only root fs, no privilege escalation, no capabilities', () => {
      expect(hardeningProblems(doc)).toEqual([]);
    });

    it('selects its own pods', () => {
      const selector = doc.spec?.selector?.matchLabels ?? {};
      expect(Object.keys(selector).length).toBeGreaterThan(0);
      expect(doc.spec?.template?.metadata?.labels).toEqual(expect.objectContaining(selector));
    });
  });

  describe.each(APP_WORKLOADS.map((loaded) => [loaded.doc.metadata?.name as string, loaded] as const))('app %s', (name, { doc }) => {
    const spec = podSpec(doc);
    const [container] = spec.containers;

    it('runs as the distroless nonroot uid 65532 with a /tmp emptyDir, its image named after it', () => {
      expect(spec.containers).toHaveLength(1);
      expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532 });
      expect(container.image).toBe(`retail-media/${name}`);
      const tmp = container.volumeMounts?.find((mount) => mount.mountPath === '/tmp');
      expect(tmp).toBeDefined();
      expect(spec.volumes?.find((volume) => volume.name === tmp?.name)?.emptyDir).toBeDefined();
    });

    it('takes its settings from retail-media-config and its secrets from retail-media-secrets only', () => {
      expect(container.envFrom).toEqual([{ configMapRef: { name: 'retail-media-config' } }]);
      const refs = (container.env ?? []).flatMap((env) => (env.valueFrom?.secretKeyRef ? [env.valueFrom.secretKeyRef] : []));
      // The ad server reads no secret (no schema, no signed calls); every other app reads some.
      if (NEEDS_NO_SECRET.includes(name)) expect(refs).toEqual([]);
      else expect(refs.length).toBeGreaterThan(0);
      for (const ref of refs) expect(ref).toEqual({ name: 'retail-media-secrets', key: expect.any(String) });
      // A secret value typed straight into a manifest.
      for (const env of container.env ?? []) {
        if (/KEY|SECRET|TOKEN|PASSWORD|MYSQL_URL/.test(env.name))
          expect({ [env.name]: env.valueFrom?.secretKeyRef?.name }).toEqual({ [env.name]: 'retail-media-secrets' });
      }
    });

    it('gives node a heap ceiling below the container memory limit', () => {
      const heapMb = Number(/--max-old-space-size=(\d+)/.exec(envValue(container, 'NODE_OPTIONS')?.value ?? '')?.[1]);
      const limit = container.resources?.limits?.memory ?? '';
      const limitMb = Number(/^(\d+)Mi$/.exec(limit)?.[1] ?? Number(/^(\d+)Gi$/.exec(limit)?.[1]) * 1024);
      expect(heapMb).toBeGreaterThan(0);
      expect(heapMb).toBeLessThan(limitMb);
    });
  });

  describe.each(Object.entries(GRPC_PORTS))('gRPC service %s', (name, port) => {
    const loaded = findApp(name);
    const container = loaded ? podSpec(loaded.doc).containers[0] : undefined;

    it(`listens on ${port}, the port named grpc, and its Service forwards to it`, () => {
      expect(loaded?.doc.metadata?.labels?.['app.kubernetes.io/component']).toBe('grpc-service');
      expect(container?.ports).toEqual([{ name: 'grpc', containerPort: port, protocol: 'TCP' }]);
      expect(envValue(container as Container, 'GRPC_PORT')?.value).toBe(String(port));
      const service = DOCS.find(({ file, doc }) => file === loaded?.file && doc.kind === 'Service');
      expect(service?.doc.spec?.ports).toEqual([expect.objectContaining({ name: 'grpc', port, targetPort: 'grpc' })]);
      // Headless, so the gateway's round_robin client sees every pod rather than one virtual IP.
      expect(service?.doc.spec?.clusterIP).toBe('None');
    });

    it('uses native grpc probes (grpc.health.v1) for startup, readiness and liveness', () => {
      for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe'] as const) {
        expect({ probe, value: container?.[probe] }).toEqual({ probe, value: expect.objectContaining({ grpc: { port } }) });
        expect(container?.[probe]?.httpGet).toBeUndefined();
      }
    });

    it('is reachable by the gateway at <name>:<port>', () => {
      const variable = `${name.toUpperCase().replace(/-/g, '_')}_ADDR`;
      const literal = `${variable}=${name}:${port}`;
      const owner = name === 'channels-plans' ? 'base/kustomization.yaml' : `components/${name}/kustomization.yaml`;
      const generator = KUSTOMIZATIONS.find(({ file }) => file === owner)?.doc.configMapGenerator?.find((g) => g.name === 'retail-media-config');
      expect(generator?.literals).toContain(literal);
      if (owner !== 'base/kustomization.yaml') expect(generator?.behavior).toBe('merge');
    });
  });

  it('binds the gRPC servers to 0.0.0.0 and the gateway to 0.0.0.0 in the shared config', () => {
    const literals = KUSTOMIZATIONS.find(({ file }) => file === 'base/kustomization.yaml')?.doc.configMapGenerator?.[0].literals ?? [];
    expect(literals).toEqual(expect.arrayContaining(['GRPC_HOST=0.0.0.0', 'HOST=0.0.0.0', 'NODE_ENV=production', 'TRUST_PROXY=true']));
  });

  describe('gateway', () => {
    const gateway = findApp('gateway');
    const container = gateway ? podSpec(gateway.doc).containers[0] : ({} as Container);

    it('serves HTTP on 8080 and probes /readyz for readiness and /healthz for liveness', () => {
      expect(container.ports).toEqual([
        { name: 'http', containerPort: 8080, protocol: 'TCP' },
        { name: 'metrics', containerPort: 9464, protocol: 'TCP' },
      ]);
      expect(envValue(container, 'PORT')?.value).toBe('8080');
      expect(envValue(container, 'METRICS_PORT')?.value).toBe('9464');
      expect(gateway?.doc.spec?.template?.metadata?.annotations?.['prometheus.io/port']).toBe('9464');
      expect(container.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'http' });
      expect(container.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
    });

    it('has a PodDisruptionBudget and a HorizontalPodAutoscaler that owns its replica count', () => {
      const byKind = (kind: string) => DOCS.filter(({ doc }) => doc.kind === kind && doc.metadata?.name === 'gateway');
      expect(byKind('PodDisruptionBudget')).toHaveLength(1);
      expect(byKind('HorizontalPodAutoscaler')).toHaveLength(1);
      expect(gateway?.doc.spec?.replicas).toBeUndefined();
    });
  });

  describe('ad-server', () => {
    const adServer = findApp('ad-server');
    const container = adServer ? podSpec(adServer.doc).containers[0] : ({} as Container);
    const ofAdServer = (kind: string) => DOCS.filter(({ doc }) => doc.kind === kind && doc.metadata?.name?.startsWith('ad-server'));

    it('is an edge serving HTTP (and /metrics) on 8070, probing /readyz and /healthz, behind the ClusterIP Service ad-server', () => {
      expect(adServer?.doc.metadata?.labels?.['app.kubernetes.io/component']).toBe('edge');
      expect(container.ports).toEqual([{ name: 'http', containerPort: 8070, protocol: 'TCP' }]);
      expect(envValue(container, 'PORT')?.value).toBe('8070');
      expect(adServer?.doc.spec?.template?.metadata?.annotations?.['prometheus.io/port']).toBe('8070');
      expect(container.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'http' });
      expect(container.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
      const [service] = ofAdServer('Service');
      expect(service?.doc.metadata?.name).toBe('ad-server');
      expect(service?.doc.spec?.ports).toEqual([expect.objectContaining({ name: 'http', port: 8070, targetPort: 'http' })]);
      expect(service?.doc.spec?.clusterIP).toBeUndefined();
    });

    it('owns no schema: no migration Job, no database settings', () => {
      expect(ofAdServer('Job')).toEqual([]);
      for (const name of ['SCHEMA_MIGRATIONS', 'MYSQL_URL', 'MYSQL_SERVICE_PASSWORD'])
        expect({ name, env: envValue(container, name) }).toEqual({ name, env: undefined });
    });

    it('scales on CPU on its own (up to 20 replicas), with a PDB, and reaches public addresses but no private range', () => {
      const [hpa] = ofAdServer('HorizontalPodAutoscaler');
      expect(hpa?.doc.spec).toMatchObject({ scaleTargetRef: { kind: 'Deployment', name: 'ad-server' }, minReplicas: 2, maxReplicas: 20 });
      expect(ofAdServer('PodDisruptionBudget')).toHaveLength(1);
      const egress = ofAdServer('NetworkPolicy').find(({ doc }) => doc.metadata?.name === 'ad-server-public-egress')?.doc as unknown as {
        spec: { egress: { to: { ipBlock: { cidr: string; except: string[] } }[] }[] };
      };
      expect(egress.spec.egress[0].to[0].ipBlock.cidr).toBe('0.0.0.0/0');
      expect(egress.spec.egress[0].to[0].ipBlock.except).toEqual(expect.arrayContaining(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16']));
    });

    it('deploy/README.md says how the public host splits /serve/ to it', () => {
      expect(README).toMatch(/`\/serve\/`[^\n]*`ad-server`/);
    });
  });

  describe('secrets', () => {
    const devSecrets = KUSTOMIZATIONS.find(({ file }) => file === 'overlays/dev/kustomization.yaml')?.doc.secretGenerator ?? [];
    const devLiterals = new Map(
      (devSecrets.find((g) => g.name === 'retail-media-secrets')?.literals ?? []).map((literal) => {
        const at = literal.indexOf('=');
        return [literal.slice(0, at), literal.slice(at + 1)] as const;
      }),
    );
    const referencedKeys = [
      ...new Set(
        WORKLOADS.flatMap(({ doc }) =>
          allContainers(podSpec(doc)).flatMap((c) => (c.env ?? []).flatMap((env) => (env.valueFrom?.secretKeyRef ? [env.valueFrom.secretKeyRef.key] : []))),
        ),
      ),
    ].sort();

    it('no Secret object and no secretGenerator outside the dev overlay', () => {
      const secretDocs = DOCS.filter(({ doc }) => doc.kind === 'Secret');
      expect(secretDocs.map(({ file }) => file)).toEqual([]);
      const generators = KUSTOMIZATIONS.filter(({ doc }) => (doc.secretGenerator ?? []).length > 0).map(({ file }) => file);
      expect(generators).toEqual(['overlays/dev/kustomization.yaml']);
    });

    it('the dev overlay generates every key a workload references, each a labelled CHANGE-ME placeholder', () => {
      expect(referencedKeys.length).toBeGreaterThan(5);
      expect([...devLiterals.keys()].sort()).toEqual(referencedKeys);
      for (const [key, value] of devLiterals) expect({ key, value }).toEqual({ key, value: expect.stringContaining('CHANGE-ME') });
    });

    it("the dev placeholders pass the apps' own validation, so the dev overlay starts as committed", () => {
      for (const key of ['internal-auth-key', 'secrets-encryption-key'])
        expect({ key, ok: secretKey.safeParse(devLiterals.get(key)).success }).toEqual({ key, ok: true });
      for (const [key, value] of devLiterals) {
        if (key.startsWith('mysql-password-')) expect({ key, ok: mysqlFields.MYSQL_SERVICE_PASSWORD.safeParse(value).success }).toEqual({ key, ok: true });
      }
      expect(z.string().min(16).safeParse(devLiterals.get('admin-token')).success).toBe(true);
      const adminUrl = new URL(devLiterals.get('mysql-admin-url') ?? '');
      expect(adminUrl.protocol).toBe('mysql:');
      expect(decodeURIComponent(adminUrl.password)).toBe(devLiterals.get('mariadb-root-password'));
    });

    it('deploy/README.md documents every secret key', () => {
      const undocumented = referencedKeys.filter((key) => !README.includes(`\`${key}\``));
      expect(undocumented).toEqual([]);
    });
  });

  describe.each(KUSTOMIZATIONS.map((loaded) => [loaded.file, loaded] as const))('%s', (file, { doc }) => {
    const dir = join(K8S, dirname(file));

    it('is a Component exactly when it lives under components/', () => {
      const expected = file.startsWith('components/')
        ? { apiVersion: 'kustomize.config.k8s.io/v1alpha1', kind: 'Component' }
        : { apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization' };
      expect({ apiVersion: doc.apiVersion, kind: doc.kind }).toEqual(expected);
    });

    it('refers only to files and folders that exist (no remote bases)', () => {
      const refs = [
        ...(doc.resources ?? []),
        ...(doc.components ?? []),
        ...(doc.patchesStrategicMerge ?? []),
        ...(doc.patches ?? []).flatMap((patch) => (patch.path ? [patch.path] : [])),
        ...[...(doc.configMapGenerator ?? []), ...(doc.secretGenerator ?? [])].flatMap((g) =>
          [...(g.files ?? []), ...(g.envs ?? [])].map((f) => f.split('=').pop() as string),
        ),
      ];
      const missing = refs.filter((ref) => /^[a-z]+:\/\//.test(ref) || !existsSync(resolve(dir, ref)));
      expect(missing).toEqual([]);
      for (const ref of doc.components ?? []) expect(existsSync(join(resolve(dir, ref), 'kustomization.yaml'))).toBe(true);
    });

    it('lists every YAML file of its folder (nothing written and forgotten)', () => {
      const listed = new Set([...(doc.resources ?? []), ...(doc.patches ?? []).flatMap((p) => (p.path ? [p.path] : []))].map((ref) => resolve(dir, ref)));
      const orphans = readdirSync(dir)
        .filter((name) => /\.ya?ml$/.test(name) && name !== 'kustomization.yaml')
        .filter((name) => !listed.has(join(dir, name)));
      expect(orphans).toEqual([]);
    });
  });

  it('the dev overlay enables every component but the optional keda one and those of apps not built yet', () => {
    const dev = KUSTOMIZATIONS.find(({ file }) => file === 'overlays/dev/kustomization.yaml')?.doc;
    const unbuilt = APPS.filter((app) => !BUILT_APPS.includes(app));
    const components = readdirSync(join(K8S, 'components'))
      .filter((name) => name !== 'keda' && !unbuilt.includes(name))
      .map((name) => `../../components/${name}`);
    expect([...(dev?.components ?? [])].sort()).toEqual(components.sort());
  });

  it('every overlay sets an image tag for every app under apps/, and names no image that no app builds', () => {
    for (const overlay of ['overlays/dev/kustomization.yaml', 'overlays/production/kustomization.yaml']) {
      const images = KUSTOMIZATIONS.find(({ file }) => file === overlay)?.doc.images ?? [];
      expect({ overlay, names: images.map((image) => image.name).sort() }).toEqual({ overlay, names: BUILT_APPS.map((app) => `retail-media/${app}`).sort() });
      for (const image of images) expect(image.newTag).toMatch(/^(?!latest$)[\w.-]+$/);
    }
  });
});

// Renders the overlays the way `kubectl apply -k` would and checks what actually reaches the cluster:
// patches applied, generated names rewritten, components merged. A machine without a recent enough
// kubectl fails here, saying what to install (`npm test` fetches one first).
describe('rendered overlays (kubectl kustomize)', () => {
  const render = (overlay: string) => renderOverlay(overlay.replace(/^overlays\//, '')) as unknown as K8sObject[];
  const names = (docs: K8sObject[], kind: string) => docs.filter((doc) => doc.kind === kind).map((doc) => doc.metadata?.name as string);
  const secretRefs = (docs: K8sObject[]) =>
    docs
      .filter(isWorkload)
      .flatMap((doc) =>
        allContainers(podSpec(doc)).flatMap((c) => (c.env ?? []).flatMap((env) => (env.valueFrom?.secretKeyRef ? [env.valueFrom.secretKeyRef] : []))),
      );

  describe('dev', () => {
    let docs: K8sObject[] = [];
    beforeAll(() => {
      docs = render('overlays/dev');
    });

    it('runs every app under apps/ plus MariaDB, NATS and MinIO, every workload hardened', () => {
      expect(names(docs, 'Deployment').sort()).toEqual([...BUILT_APPS].sort());
      expect(names(docs, 'StatefulSet').sort()).toEqual(['mariadb', 'minio', 'nats']);
      for (const doc of docs.filter(isWorkload))
        expect({ name: doc.metadata?.name, problems: hardeningProblems(doc) }).toEqual({ name: doc.metadata?.name, problems: [] });
    });

    it('points every secret reference at the generated Secret, which holds the key', () => {
      const secrets = docs.filter((doc) => doc.kind === 'Secret');
      expect(secrets).toHaveLength(1);
      const [secret] = secrets;
      expect(secret.metadata?.name).toMatch(/^retail-media-secrets-[a-z0-9]+$/);
      for (const ref of secretRefs(docs)) {
        expect(ref.name).toBe(secret.metadata?.name);
        expect(Object.keys(secret.data ?? {})).toContain(ref.key);
      }
    });

    it('gives the gateway every gRPC address and keeps one replica of each autoscaled app', () => {
      const config = docs.find((doc) => doc.kind === 'ConfigMap' && doc.metadata?.name?.startsWith('retail-media-config-'));
      for (const [name, port] of Object.entries(GRPC_PORTS)) expect(config?.data?.[`${name.toUpperCase().replace(/-/g, '_')}_ADDR`]).toBe(`${name}:${port}`);
      const hpas = docs.filter((doc) => doc.kind === 'HorizontalPodAutoscaler');
      expect(hpas.length).toBeGreaterThan(1);
      for (const hpa of hpas)
        expect({ hpa: hpa.metadata?.name, range: [hpa.spec?.minReplicas, hpa.spec?.maxReplicas] }).toEqual({ hpa: hpa.metadata?.name, range: [1, 1] });
    });
  });

  describe('production', () => {
    let docs: K8sObject[] = [];
    beforeAll(() => {
      docs = render('overlays/production');
    });

    it('defines no Secret and expects the external retail-media-secrets by its plain name', () => {
      expect(names(docs, 'Secret')).toEqual([]);
      const refs = secretRefs(docs);
      expect(refs.length).toBeGreaterThan(0);
      for (const ref of refs) expect(ref.name).toBe('retail-media-secrets');
    });

    it('runs every app under apps/ from pinned registry images, hardened, with the gateway and the services autoscaled from two replicas', () => {
      expect(names(docs, 'Deployment').sort()).toEqual([...BUILT_APPS].sort());
      for (const doc of docs.filter(isWorkload)) {
        expect(hardeningProblems(doc)).toEqual([]);
        expect(podSpec(doc).containers[0].image).toMatch(/^[\w.-]+\.[a-z]+\/retail-media\/[a-z-]+:(?!latest$)[\w.-]+$/);
      }
      const hpas = docs.filter((doc) => doc.kind === 'HorizontalPodAutoscaler');
      expect(hpas.length).toBeGreaterThan(1);
      for (const hpa of hpas) expect({ hpa: hpa.metadata?.name, min: hpa.spec?.minReplicas }).toEqual({ hpa: hpa.metadata?.name, min: expect.any(Number) });
      for (const hpa of hpas) expect(hpa.spec?.minReplicas).toBeGreaterThanOrEqual(2);
      expect(hpas.find((hpa) => hpa.metadata?.name === 'gateway')?.spec?.minReplicas).toBe(3);
    });
  });
});
